// Sumcache-Peer-Auth (docs/protocol.md, "Peer object requests"): the known
// answers were computed apart from this code, with
//   printf 'sumcache-peer-auth-v1\nGET\n<target>\n<t>\n<node>' | openssl dgst -sha256 -hmac
//   <secret>

#include "protocol/peer_auth.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <vector>

namespace sumcache::protocol {
namespace {

constexpr std::string_view kSecret = "cluster-test-secret-0123456789";
constexpr std::string_view kTarget = "http://example.com/a?b=1";
constexpr std::int64_t kTime = 1700000000;
constexpr std::string_view kMac =
    "d1b93e6e43b142a1a6281824758093fcb53415984c6ea293af3feec611962d28";

std::optional<std::string> only_node_a(std::string_view id) {
  if (id == "node-a") return std::string(kSecret);
  return std::nullopt;
}

std::string header(std::string_view node, std::int64_t t, std::string_view mac) {
  return "node=" + std::string(node) + "; t=" + std::to_string(t) + "; mac=" + std::string(mac);
}

std::error_code verify_error(std::string_view value, std::string_view method = "GET",
                             std::string_view target = kTarget, std::int64_t now = kTime) {
  return verify_peer_request(value, method, target, now, only_node_a).error();
}

TEST(PeerAuth, SignedBytesAreTheDocumentedCanonicalString) {
  EXPECT_EQ(peer_auth_signed_bytes("GET", kTarget, kTime, "node-a"),
            "sumcache-peer-auth-v1\nGET\nhttp://example.com/a?b=1\n1700000000\nnode-a");
}

TEST(PeerAuth, SignsTheKnownAnswer) {
  EXPECT_EQ(sign_peer_request("GET", kTarget, "node-a", kTime, kSecret),
            header("node-a", kTime, kMac));
  EXPECT_EQ(sign_peer_request("HEAD", "http://[::1]:8080/x%20y", "n.b_c-1", 0,
                              "another-secret-of-sixteen+"),
            "node=n.b_c-1; t=0; mac="
            "b68acad1bbe451cdee17b6ecda4f47aef7ad15ada8477eb24a693e4362645e42");
}

TEST(PeerAuth, VerifiesTheKnownAnswerAndNamesItsNode) {
  auto node =
      verify_peer_request(header("node-a", kTime, kMac), "GET", kTarget, kTime, only_node_a);
  ASSERT_TRUE(node) << node.error().message();
  EXPECT_EQ(*node, "node-a");
}

TEST(PeerAuth, AcceptsTimesAtTheEdgesOfTheWindow) {
  for (std::int64_t now : {kTime - kPeerAuthWindowSeconds, kTime + kPeerAuthWindowSeconds}) {
    EXPECT_FALSE(verify_error(header("node-a", kTime, kMac), "GET", kTarget, now)) << now;
  }
}

TEST(PeerAuth, RefusesAnExpiredOrFutureTime) {
  const std::string value = header("node-a", kTime, kMac);
  EXPECT_EQ(verify_error(value, "GET", kTarget, kTime + kPeerAuthWindowSeconds + 1),
            PeerAuthErrc::expired);
  EXPECT_EQ(verify_error(value, "GET", kTarget, kTime - kPeerAuthWindowSeconds - 1),
            PeerAuthErrc::from_future);
}

TEST(PeerAuth, RefusesEachSignedFieldTamperedWith) {
  const std::string value = header("node-a", kTime, kMac);
  EXPECT_EQ(verify_error(value, "HEAD"), PeerAuthErrc::bad_mac);
  EXPECT_EQ(verify_error(value, "GET", "http://example.com/a?b=2"), PeerAuthErrc::bad_mac);
  EXPECT_EQ(verify_error(value, "GET", "http://example.com/a?b=1 "), PeerAuthErrc::bad_mac);
  // A changed time inside the window, so that only the MAC can catch it.
  EXPECT_EQ(verify_error(header("node-a", kTime + 1, kMac)), PeerAuthErrc::bad_mac);
  // Every bit of the MAC counts.
  for (std::size_t i = 0; i < kMac.size(); ++i) {
    std::string mac(kMac);
    mac[i] = mac[i] == '0' ? '1' : '0';
    EXPECT_EQ(verify_error(header("node-a", kTime, mac)), PeerAuthErrc::bad_mac) << i;
  }
}

TEST(PeerAuth, RefusesAnotherNodesNameOrAnotherSecret) {
  // node-b signed with the right secret, but is no configured peer.
  const std::string by_b = sign_peer_request("GET", kTarget, "node-b", kTime, kSecret);
  EXPECT_EQ(verify_error(by_b), PeerAuthErrc::unknown_node);
  // node-a's MAC under node-b's name: the node is a signed field.
  auto both = [](std::string_view id) -> std::optional<std::string> {
    if (id == "node-a" || id == "node-b") return std::string(kSecret);
    return std::nullopt;
  };
  EXPECT_EQ(verify_peer_request(header("node-b", kTime, kMac), "GET", kTarget, kTime, both).error(),
            PeerAuthErrc::bad_mac);
  const std::string wrong_secret =
      sign_peer_request("GET", kTarget, "node-a", kTime, "not-the-cluster-secret");
  EXPECT_EQ(verify_error(wrong_secret), PeerAuthErrc::bad_mac);
}

TEST(PeerAuth, AnOwnerFetchIsSignedUnderALabelOfItsOwn) {
  EXPECT_EQ(peer_auth_signed_bytes("GET", kTarget, kTime, "node-a", PeerAuthScope::owner_fetch),
            "sumcache-owner-fetch-v1\nGET\nhttp://example.com/a?b=1\n1700000000\nnode-a");
  const std::string owner =
      sign_peer_request("GET", kTarget, "node-a", kTime, kSecret, PeerAuthScope::owner_fetch);
  ASSERT_FALSE(owner.empty());
  EXPECT_NE(owner, header("node-a", kTime, kMac));
  auto node =
      verify_peer_request(owner, "GET", kTarget, kTime, only_node_a, PeerAuthScope::owner_fetch);
  ASSERT_TRUE(node) << node.error().message();
  EXPECT_EQ(*node, "node-a");
}

TEST(PeerAuth, AHeaderSignedForOneScopeDoesNotVerifyForTheOther) {
  // A captured store-only header cannot be turned into an origin fetch, nor the reverse.
  EXPECT_EQ(verify_peer_request(header("node-a", kTime, kMac), "GET", kTarget, kTime, only_node_a,
                                PeerAuthScope::owner_fetch)
                .error(),
            PeerAuthErrc::bad_mac);
  const std::string owner =
      sign_peer_request("GET", kTarget, "node-a", kTime, kSecret, PeerAuthScope::owner_fetch);
  EXPECT_EQ(verify_error(owner), PeerAuthErrc::bad_mac);
}

TEST(PeerAuth, ToleratesWhitespaceAroundSemicolons) {
  const std::string value = "node=node-a ;\tt=1700000000 ;  mac=" + std::string(kMac);
  EXPECT_FALSE(verify_error(value));
}

TEST(PeerAuth, RefusesMalformedHeaders) {
  const std::string mac(kMac);
  const std::string upper = [&] {
    std::string s = mac;
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  }();
  const std::vector<std::string> bad = {
      "",
      "node-a",
      "node=node-a; t=1700000000",
      "node=node-a; t=1700000000; mac=" + mac + "; extra=1",
      "t=1700000000; node=node-a; mac=" + mac,            // another order
      "node=node-a; t=1700000000; mac=" + mac.substr(1),  // 63 digits
      "node=node-a; t=1700000000; mac=" + mac + "0",      // 65 digits
      "node=node-a; t=1700000000; mac=" + upper,          // one spelling per MAC
      "node=node-a; t=1700000000; mac=" + mac.substr(1) + "g",
      "node=node-a; t=01700000000; mac=" + mac,  // leading zero
      "node=node-a; t=-1; mac=" + mac,
      "node=node-a; t=+1700000000; mac=" + mac,
      "node=node-a; t=; mac=" + mac,
      "node=node-a; t=1700000000000; mac=" + mac,  // 13 digits
      "node=node-a; t=17000 00000; mac=" + mac,
      "node=; t=1700000000; mac=" + mac,
      "node=node a; t=1700000000; mac=" + mac,
      "node=node/a; t=1700000000; mac=" + mac,
      "node=" + std::string(65, 'a') + "; t=1700000000; mac=" + mac,
      "Node=node-a; t=1700000000; mac=" + mac,
      "node = node-a; t=1700000000; mac=" + mac,
      "node=node-a; t=1700000000; mac=" + mac + std::string(300, ' '),
  };
  for (const auto& value : bad) {
    EXPECT_EQ(verify_error(value), PeerAuthErrc::malformed) << '"' << value << '"';
  }
}

TEST(PeerAuth, SignsNothingForAnInvalidNodeOrTime) {
  EXPECT_EQ(sign_peer_request("GET", kTarget, "node a", kTime, kSecret), "");
  EXPECT_EQ(sign_peer_request("GET", kTarget, "", kTime, kSecret), "");
  EXPECT_EQ(sign_peer_request("GET", kTarget, "node-a", -1, kSecret), "");
}

TEST(PeerAuth, ARoundTripVerifiesForAnyTargetBytes) {
  const std::string target = "http://h:1/p?q=%00%ff&r=\x7f";
  const std::string value = sign_peer_request("GET", target, "node-a", 42, kSecret);
  auto node = verify_peer_request(value, "GET", target, 50, only_node_a);
  ASSERT_TRUE(node) << node.error().message();
  EXPECT_EQ(*node, "node-a");
}

TEST(PeerAuthError, EveryReasonHasItsOwnMessageAndLabel) {
  std::set<std::string> messages;
  std::set<std::string> labels;
  for (int e = 1; e <= static_cast<int>(kPeerAuthReasons); ++e) {
    const auto errc = static_cast<PeerAuthErrc>(e);
    EXPECT_TRUE(messages.insert(make_error_code(errc).message()).second) << e;
    EXPECT_TRUE(labels.insert(label(errc)).second) << e;
    EXPECT_STRNE(label(errc), "unknown") << e;
  }
  EXPECT_EQ(make_error_code(static_cast<PeerAuthErrc>(kPeerAuthReasons + 1)).message(),
            "unknown peer authentication error");
}

}  // namespace
}  // namespace sumcache::protocol
