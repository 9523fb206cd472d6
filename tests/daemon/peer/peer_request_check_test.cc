// How the proxy port classifies a request that claims to come from a peer
// (docs/peers.md, "Authenticated object requests").

#include "daemon/peer/peer_request_check.h"

#include <gtest/gtest.h>

#include <vector>

#include "protocol/peer_auth.h"

namespace sumcache::daemon {
namespace {

using protocol::PeerAuthErrc;

constexpr std::string_view kSecret = "cluster-test-secret-0123456789";
constexpr std::string_view kTarget = "http://127.0.0.1:8080/obj/a";
constexpr std::int64_t kNow = 1700000000;

std::optional<std::string> peers_a_and_b(std::string_view id) {
  if (id == "node-a" || id == "node-b") return std::string(kSecret);
  return std::nullopt;
}

struct Request {
  std::string method = "GET";
  std::vector<std::string_view> markers{};
  std::vector<std::string_view> auths{};
  std::vector<std::string_view> owner_marks{};
};

PeerRequestCheck check(const Request& r, std::string_view secret = kSecret) {
  return check_peer_request({r.method, kTarget, r.markers, r.auths, kNow, r.owner_marks}, secret,
                            peers_a_and_b);
}

std::string signed_by(std::string_view node, std::string_view method = "GET",
                      std::int64_t t = kNow) {
  return protocol::sign_peer_request(method, kTarget, node, t, kSecret);
}

std::string owner_fetch_by(std::string_view node, std::string_view method = "GET") {
  return protocol::sign_peer_request(method, kTarget, node, kNow, kSecret,
                                     protocol::PeerAuthScope::owner_fetch);
}

TEST(PeerRequestCheck, ARequestWithNeitherFieldIsAClients) {
  EXPECT_EQ(check({}).kind, PeerRequestKind::client);
  EXPECT_EQ(check({}, "").kind, PeerRequestKind::client);
}

TEST(PeerRequestCheck, WithoutASecretTheMarkerIsTakenAtItsWord) {
  const auto c = check({.markers = {"node-a"}}, "");
  EXPECT_EQ(c.kind, PeerRequestKind::unchecked_peer);
  EXPECT_FALSE(c.reason);
}

TEST(PeerRequestCheck, AVerifiedPeerIsNamed) {
  const std::string auth = signed_by("node-a");
  for (const auto& markers :
       {std::vector<std::string_view>{"node-a"}, std::vector<std::string_view>{}}) {
    const auto c = check({.markers = markers, .auths = {auth}});
    EXPECT_EQ(c.kind, PeerRequestKind::verified_peer) << c.reason.message();
    EXPECT_EQ(c.node, "node-a");
  }
  const std::string head = signed_by("node-b", "HEAD");
  EXPECT_EQ(check({.method = "HEAD", .markers = {"node-b"}, .auths = {head}}).kind,
            PeerRequestKind::verified_peer);
}

TEST(PeerRequestCheck, TheMarkerWithoutTheHeaderIsRefusedNamingTheClaimedNode) {
  const auto c = check({.markers = {"node-a"}});
  EXPECT_EQ(c.kind, PeerRequestKind::refused);
  EXPECT_EQ(c.reason, PeerAuthErrc::missing);
  EXPECT_EQ(c.node, "node-a");
}

TEST(PeerRequestCheck, AClaimedNodeThatIsNoValidIdIsLoggedAsAQuestionMark) {
  const auto c = check({.markers = {"node a\r\nforged: line"}});
  EXPECT_EQ(c.kind, PeerRequestKind::refused);
  EXPECT_EQ(c.node, "?");
}

TEST(PeerRequestCheck, RepeatedFieldsAreMalformed) {
  const std::string auth = signed_by("node-a");
  EXPECT_EQ(check({.markers = {"node-a"}, .auths = {auth, auth}}).reason, PeerAuthErrc::malformed);
  EXPECT_EQ(check({.markers = {"node-a", "node-a"}, .auths = {auth}}).reason,
            PeerAuthErrc::malformed);
}

TEST(PeerRequestCheck, EachVerificationFailureIsRefusedWithItsReason) {
  const std::string by_c = protocol::sign_peer_request("GET", kTarget, "node-c", kNow, kSecret);
  const auto unknown = check({.markers = {"node-c"}, .auths = {by_c}});
  EXPECT_EQ(unknown.reason, PeerAuthErrc::unknown_node);
  EXPECT_EQ(unknown.node, "node-c");
  EXPECT_EQ(check({.auths = {signed_by("node-a", "GET", kNow - 31)}}).reason,
            PeerAuthErrc::expired);
  EXPECT_EQ(check({.auths = {signed_by("node-a", "GET", kNow + 31)}}).reason,
            PeerAuthErrc::from_future);
  const std::string forged =
      protocol::sign_peer_request("GET", kTarget, "node-a", kNow, "a-guess-at-the-cluster-secret");
  EXPECT_EQ(check({.markers = {"node-a"}, .auths = {forged}}).reason, PeerAuthErrc::bad_mac);
  EXPECT_EQ(check({.auths = {"node=node-a"}}).reason, PeerAuthErrc::malformed);
}

TEST(PeerRequestCheck, TheMarkerMustNameTheSigningNode) {
  const auto c = check({.markers = {"node-b"}, .auths = {signed_by("node-a")}});
  EXPECT_EQ(c.kind, PeerRequestKind::refused);
  EXPECT_EQ(c.reason, PeerAuthErrc::node_mismatch);
}

TEST(PeerRequestCheck, OnlyGetAndHeadMayBypassTheAllowList) {
  for (std::string method : {"POST", "PURGE", "CONNECT", "DELETE"}) {
    const auto c =
        check({.method = method, .markers = {"node-a"}, .auths = {signed_by("node-a", method)}});
    EXPECT_EQ(c.reason, PeerAuthErrc::bad_method) << method;
  }
}

TEST(PeerRequestCheck, AnOwnerFetchSignedForThatScopeIsVerifiedAsOne) {
  const std::string auth = owner_fetch_by("node-a");
  const auto c = check({.markers = {"node-a"}, .auths = {auth}, .owner_marks = {"1"}});
  EXPECT_EQ(c.kind, PeerRequestKind::verified_peer) << c.reason.message();
  EXPECT_EQ(c.node, "node-a");
  EXPECT_TRUE(c.owner_fetch);
  EXPECT_FALSE(check({.markers = {"node-a"}, .auths = {signed_by("node-a")}}).owner_fetch);
}

TEST(PeerRequestCheck, TheOwnerFetchMarkerAloneIsRefused) {
  // With a secret, the marker is a peer header like the others: it needs the signature.
  const auto c = check({.owner_marks = {"1"}});
  EXPECT_EQ(c.kind, PeerRequestKind::refused);
  EXPECT_EQ(c.reason, PeerAuthErrc::missing);
}

TEST(PeerRequestCheck, AStoreOnlySignatureCannotBeTurnedIntoAnOwnerFetch) {
  // A captured only-if-cached request replayed with the marker added: the
  // MAC was made for the store-only scope, so it does not verify.
  const auto widened =
      check({.markers = {"node-a"}, .auths = {signed_by("node-a")}, .owner_marks = {"1"}});
  EXPECT_EQ(widened.kind, PeerRequestKind::refused);
  EXPECT_EQ(widened.reason, PeerAuthErrc::bad_mac);
  // Nor an owner fetch's signature used without its marker.
  const auto narrowed = check({.markers = {"node-a"}, .auths = {owner_fetch_by("node-a")}});
  EXPECT_EQ(narrowed.reason, PeerAuthErrc::bad_mac);
}

TEST(PeerRequestCheck, TheOwnerFetchMarkerHasOneValueGivenOnce) {
  const std::string auth = owner_fetch_by("node-a");
  EXPECT_EQ(check({.auths = {auth}, .owner_marks = {"yes"}}).reason, PeerAuthErrc::malformed);
  EXPECT_EQ(check({.auths = {auth}, .owner_marks = {"1", "1"}}).reason, PeerAuthErrc::malformed);
}

TEST(PeerRequestCheck, AnOwnerFetchIsAGetOrHeadOnly) {
  EXPECT_EQ(
      check({.method = "POST", .auths = {owner_fetch_by("node-a", "POST")}, .owner_marks = {"1"}})
          .reason,
      PeerAuthErrc::bad_method);
}

}  // namespace
}  // namespace sumcache::daemon
