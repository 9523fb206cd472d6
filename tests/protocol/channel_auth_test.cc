// Sumcache-Channel-Auth (docs/protocol.md, "Channel authentication"): the
// known answers were computed apart from this code, with
//   printf 'sumcache-channel-request-v1\nPOST\n/sumcache/v1/invalidations\nnode-b\nnode-a\n
//   1700000000\n00112233445566778899aabbccddeeff\n120' | openssl dgst -sha256 -hmac <secret>
// (and the answer's string likewise).

#include "protocol/channel_auth.h"

#include <gtest/gtest.h>

#include <string>

namespace sumcache::protocol {
namespace {

constexpr std::string_view kSecret = "cluster-test-secret-0123456789";
constexpr std::string_view kPath = "/sumcache/v1/invalidations";
constexpr std::string_view kNonce = "00112233445566778899aabbccddeeff";
constexpr std::int64_t kTime = 1700000000;
constexpr std::string_view kRequestMac =
    "9e90e285db4a22e1c1fdffb8bd9747a5800ff10dd8de144505be2118f69650d4";
constexpr std::string_view kAnswerMac =
    "e72234b2c8a0c4d2ab1d0158d9fa1b70e6876b3b0275266c6fb24ad03a8ff877";

ChannelRequestAuth request_fields(std::int64_t t = kTime, std::uint64_t len = 120) {
  return {"node-b", "node-a", t, kNonce, len, {}};
}

ChannelRequestFacts facts(std::uint64_t length = 120, std::int64_t now = kTime) {
  return {"POST", kPath, "node-a", length, now};
}

std::string signed_request(std::int64_t t = kTime, std::uint64_t len = 120) {
  return sign_channel_request("POST", kPath, request_fields(t, len), kSecret);
}

std::error_code verify_error(std::string_view value, const ChannelRequestFacts& f = facts()) {
  return verify_channel_request(value, f, kSecret).error();
}

TEST(ChannelAuth, ARequestHeaderIsTheDocumentedStringAndMac) {
  EXPECT_EQ(signed_request(), "node=node-b; to=node-a; t=1700000000; n=" + std::string(kNonce) +
                                  "; len=120; mac=" + std::string(kRequestMac));
}

TEST(ChannelAuth, AnAnswerHeaderIsTheDocumentedStringAndMac) {
  const ChannelAnswerAuth a{"node-a", "node-b", kNonce, 200, 44, {}};
  EXPECT_EQ(sign_channel_answer(a, kSecret),
            "node=node-a; to=node-b; n=" + std::string(kNonce) +
                "; status=200; len=44; mac=" + std::string(kAnswerMac));
}

TEST(ChannelAuth, ASignedRequestVerifiesAndRoundTrips) {
  const std::string value = signed_request();
  auto f = verify_channel_request(value, facts(), kSecret);
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_EQ(f->node, "node-b");
  EXPECT_EQ(f->to, "node-a");
  EXPECT_EQ(f->time, kTime);
  EXPECT_EQ(f->nonce, kNonce);
  EXPECT_EQ(f->length, 120U);
}

TEST(ChannelAuth, TheMacBindsMethodPathAndEveryField) {
  const std::string value = signed_request();
  EXPECT_EQ(verify_error(value, {"GET", kPath, "node-a", 120, kTime}), ChannelAuthErrc::bad_mac);
  EXPECT_EQ(verify_error(value, {"POST", "/sumcache/v1/summary", "node-a", 120, kTime}),
            ChannelAuthErrc::bad_mac);
  // Each field changed in the header, the MAC left as it was.
  for (auto [from, to] :
       {std::pair{"node=node-b", "node=node-c"}, std::pair{"t=1700000000", "t=1700000001"},
        std::pair{"n=0011", "n=1011"}, std::pair{"len=120", "len=121"}}) {
    std::string changed = value;
    changed.replace(changed.find(from), std::string_view(from).size(), to);
    const auto length = changed.find("len=121") != std::string::npos ? 121U : 120U;
    EXPECT_EQ(verify_error(changed, facts(length)), ChannelAuthErrc::bad_mac) << changed;
  }
  EXPECT_EQ(verify_channel_request(value, facts(), "another-secret-0123456789").error(),
            ChannelAuthErrc::bad_mac);
}

TEST(ChannelAuth, AHeadForAnotherReceiverIsRefused) {
  const std::string value = signed_request();
  EXPECT_EQ(verify_error(value, {"POST", kPath, "node-c", 120, kTime}),
            ChannelAuthErrc::wrong_receiver);
}

TEST(ChannelAuth, OnlyAGetMayNameAnyReceiver) {
  ChannelRequestAuth any{"node-b", kAnyReceiver, kTime, kNonce, 0, {}};
  const std::string get = sign_channel_request("GET", "/sumcache/v1/summary", any, kSecret);
  ASSERT_FALSE(get.empty());
  EXPECT_TRUE(
      verify_channel_request(get, {"GET", "/sumcache/v1/summary", "node-a", 0, kTime}, kSecret)
          .ok());
  EXPECT_TRUE(sign_channel_request("POST", kPath, any, kSecret).empty());
}

TEST(ChannelAuth, ALengthOtherThanTheContentLengthIsRefused) {
  EXPECT_EQ(verify_error(signed_request(), facts(121)), ChannelAuthErrc::length_mismatch);
}

TEST(ChannelAuth, ATimeOutsideTheWindowIsRefusedAfterTheMac) {
  EXPECT_EQ(verify_error(signed_request(kTime - 31)), ChannelAuthErrc::expired);
  EXPECT_EQ(verify_error(signed_request(kTime + 31)), ChannelAuthErrc::from_future);
  EXPECT_TRUE(verify_channel_request(signed_request(kTime - 30), facts(), kSecret).ok());
  EXPECT_TRUE(verify_channel_request(signed_request(kTime + 30), facts(), kSecret).ok());
  // Forged and stale: the MAC speaks first.
  std::string forged = signed_request(kTime - 100);
  forged.back() = forged.back() == '0' ? '1' : '0';
  EXPECT_EQ(verify_error(forged), ChannelAuthErrc::bad_mac);
}

TEST(ChannelAuth, TheGrammarIsStrict) {
  const std::string good = signed_request();
  const std::string mac = "; mac=" + std::string(kRequestMac);
  const std::string n = std::string(kNonce);
  for (const std::string& bad : {
           std::string(),
           "node=node-b;to=node-a; t=1700000000; n=" + n + "; len=120" + mac,
           "to=node-a; node=node-b; t=1700000000; n=" + n + "; len=120" + mac,
           "node=node-b; to=node-a; t=01700000000; n=" + n + "; len=120" + mac,
           "node=node-b; to=node-a; t=1700000000; n=" + n + "; len=0120" + mac,
           "node=node-b; to=node-a; t=1700000000; n=" + n + "; len=-1" + mac,
           "node=node-b; to=node-a; t=1700000000; n=00112233445566778899AABBCCDDEEFF; len=120" +
               mac,
           "node=node-b; to=node-a; t=1700000000; n=0011; len=120" + mac,
           "node=node b; to=node-a; t=1700000000; n=" + n + "; len=120" + mac,
           "node=node-b; to=*; t=1700000000; n=" + n + "; len=99999999999999999999999" + mac,
           good + " ",
           good + "; x=1",
           good.substr(0, good.size() - 1),
           good.substr(0, good.size() - 1) + "A",
           std::string(kMaxChannelAuthBytes + 1, 'a'),
       }) {
    EXPECT_EQ(parse_channel_request(bad).error(), ChannelAuthErrc::malformed) << bad;
  }
}

TEST(ChannelAuth, AnAnswerIsBoundToItsRequestStatusAndLength) {
  const ChannelAnswerAuth a{"node-a", "node-b", kNonce, 200, 44, {}};
  const std::string value = sign_channel_answer(a, kSecret);
  const ChannelAnswerFacts ok{"node-a", "node-b", kNonce, 200, 44};
  auto node = verify_channel_answer(value, ok, kSecret);
  ASSERT_TRUE(node.ok()) << node.error().message();
  EXPECT_EQ(*node, "node-a");
  // Played back to a later request: its nonce is another.
  ChannelAnswerFacts later = ok;
  later.nonce = "ffeeddccbbaa99887766554433221100";
  EXPECT_EQ(verify_channel_answer(value, later, kSecret).error(), ChannelAuthErrc::other_request);
  ChannelAnswerFacts status = ok;
  status.status = 204;
  EXPECT_EQ(verify_channel_answer(value, status, kSecret).error(), ChannelAuthErrc::bad_mac);
  ChannelAnswerFacts length = ok;
  length.length = 45;
  EXPECT_EQ(verify_channel_answer(value, length, kSecret).error(),
            ChannelAuthErrc::length_mismatch);
  ChannelAnswerFacts other = ok;
  other.responder = "node-c";
  EXPECT_EQ(verify_channel_answer(value, other, kSecret).error(), ChannelAuthErrc::wrong_receiver);
  ChannelAnswerFacts anyone = ok;
  anyone.responder = {};
  EXPECT_TRUE(verify_channel_answer(value, anyone, kSecret).ok());
  EXPECT_EQ(verify_channel_answer(value, ok, "another-secret-0123456789").error(),
            ChannelAuthErrc::bad_mac);
}

}  // namespace
}  // namespace sumcache::protocol
