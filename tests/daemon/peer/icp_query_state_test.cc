#include "daemon/peer/icp_query_state.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

TEST(IcpQueryState, AsksThePeersInTheMaskThatExist) {
  const auto q = start_icp_query(0b1011, 3);
  EXPECT_EQ(q.awaiting, 0b011u);
  EXPECT_EQ(q.result.queried, 2u);
  EXPECT_FALSE(q.done);
  EXPECT_EQ(start_icp_query(~0ULL, 64).result.queried, 64u);
}

TEST(IcpQueryState, WithNobodyToAskIsDoneAtOnce) {
  EXPECT_TRUE(start_icp_query(0, 5).done);
  EXPECT_TRUE(start_icp_query(~0ULL, 0).done);
  EXPECT_EQ(start_icp_query(0b100, 2).result.queried, 0u);
}

TEST(IcpQueryState, TheFirstHitCompletesIt) {
  auto q = start_icp_query(0b111, 3);
  EXPECT_EQ(record_icp_reply(q, 0, false), IcpReplyEffect::counted);
  EXPECT_EQ(record_icp_reply(q, 2, true), IcpReplyEffect::completed);
  EXPECT_EQ(q.result.hit, 2u);
  EXPECT_EQ(q.result.replies, 2u);
  EXPECT_EQ(record_icp_reply(q, 1, true), IcpReplyEffect::unexpected);
  EXPECT_EQ(q.result.hit, 2u);  // a later HIT does not replace the first
}

TEST(IcpQueryState, AllMissesCompleteItWithoutAHit) {
  auto q = start_icp_query(0b11, 2);
  EXPECT_EQ(record_icp_reply(q, 1, false), IcpReplyEffect::counted);
  EXPECT_EQ(record_icp_reply(q, 0, false), IcpReplyEffect::completed);
  EXPECT_FALSE(q.result.hit);
  EXPECT_FALSE(q.result.timed_out);
  EXPECT_EQ(q.result.replies, 2u);
}

TEST(IcpQueryState, ADuplicateOrAnUnaskedPeerIsUnexpected) {
  auto q = start_icp_query(0b101, 3);
  EXPECT_EQ(record_icp_reply(q, 1, true), IcpReplyEffect::unexpected);  // not asked
  EXPECT_EQ(record_icp_reply(q, 0, false), IcpReplyEffect::counted);
  EXPECT_EQ(record_icp_reply(q, 0, false), IcpReplyEffect::unexpected);  // twice
  EXPECT_EQ(record_icp_reply(q, 64, true), IcpReplyEffect::unexpected);
  EXPECT_FALSE(q.done);
  EXPECT_EQ(q.result.replies, 1u);
}

TEST(IcpQueryState, ExpiryReportsTheSilentPeersOnce) {
  auto q = start_icp_query(0b111, 3);
  record_icp_reply(q, 1, false);
  EXPECT_EQ(expire_icp_query(q), 0b101u);
  EXPECT_TRUE(q.result.timed_out);
  EXPECT_EQ(expire_icp_query(q), 0u);
  EXPECT_EQ(record_icp_reply(q, 0, true), IcpReplyEffect::unexpected);
}

TEST(IcpQueryState, ExpiryAfterCompletionChangesNothing) {
  auto q = start_icp_query(0b1, 1);
  record_icp_reply(q, 0, true);
  EXPECT_EQ(expire_icp_query(q), 0u);
  EXPECT_FALSE(q.result.timed_out);
}

TEST(IcpQueryState, AFailedSendStopsTheWaitForThatPeer) {
  auto q = start_icp_query(0b11, 2);
  EXPECT_FALSE(record_icp_send_failure(q, 0));
  EXPECT_EQ(q.result.queried, 1u);
  EXPECT_EQ(record_icp_reply(q, 0, true), IcpReplyEffect::unexpected);
  EXPECT_TRUE(record_icp_send_failure(q, 1));
  EXPECT_TRUE(q.done);
  EXPECT_EQ(q.result.queried, 0u);
  EXPECT_FALSE(q.result.timed_out);
}

}  // namespace
}  // namespace sumcache::daemon
