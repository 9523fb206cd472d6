// ICP peers' health (docs/icp.md, "Dead peers"): a peer silent through one
// query's window is down at once, a down one that answers is up, and a query
// that stopped waiting says nothing of the peers it left.

#include "daemon/peer/icp_health.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

// A query to peers 0, 1 and 2 in which `answer` replied (MISS) before the timeout.
IcpQueryResult timed_out_query(std::uint64_t down, std::uint64_t answer) {
  IcpQueryState q = start_icp_query(0b111 & ~down, 3);
  for (std::size_t i = 0; i < 3; ++i) {
    if ((answer >> i & 1U) != 0) record_icp_reply(q, i, false);
  }
  expire_icp_query(q);
  return q.result;
}

TEST(IcpHealth, APeerSilentThroughTheFirstWindowIsDownAtOnce) {
  const IcpHealthChange c = icp_health_after(0, timed_out_query(0, 0b101));
  EXPECT_EQ(c.went_down, 0b010U);
  EXPECT_EQ(c.came_up, 0U);
}

TEST(IcpHealth, EveryPeerAnsweringChangesNothing) {
  IcpQueryState q = start_icp_query(0b11, 2);
  record_icp_reply(q, 0, false);
  record_icp_reply(q, 1, false);
  ASSERT_TRUE(q.done);
  const IcpHealthChange c = icp_health_after(0, q.result);
  EXPECT_EQ(c.went_down | c.came_up, 0U);
}

TEST(IcpHealth, ADownPeerThatAnswersAProbeIsUpAndOneStillSilentStaysDownUncounted) {
  // Probes go to the down peers only: 0 and 2; 2 answers.
  IcpQueryState probe = start_icp_query(0b101, 3);
  record_icp_reply(probe, 2, false);
  expire_icp_query(probe);
  const IcpHealthChange c = icp_health_after(0b101, probe.result);
  EXPECT_EQ(c.came_up, 0b100U);
  EXPECT_EQ(c.went_down, 0U);  // peer 0 was down already: not marked down twice
}

TEST(IcpHealth, PeersTheFirstHitStoppedWaitingForAreNotJudged) {
  IcpQueryState q = start_icp_query(0b111, 3);
  EXPECT_EQ(record_icp_reply(q, 1, true), IcpReplyEffect::completed);
  expire_icp_query(q);  // finish() after completion: no peer is silent
  EXPECT_EQ(q.result.silent, 0U);
  EXPECT_EQ(q.result.answered, 0b010U);
  const IcpHealthChange c = icp_health_after(0, q.result);
  EXPECT_EQ(c.went_down | c.came_up, 0U);
}

TEST(IcpHealth, AQueryEndedByStopSaysNothingOfTheSilentPeers) {
  IcpQueryResult r = timed_out_query(0, 0b001);
  r.stopped = true;
  EXPECT_EQ(icp_health_after(0, r).went_down, 0U);
  // A query that found the agent stopped reached nobody.
  IcpQueryState none = start_icp_query(0, 3);
  EXPECT_EQ(icp_health_after(0, none.result).went_down, 0U);
}

TEST(IcpHealth, APeerThatFailedToSendIsNotSilent) {
  IcpQueryState q = start_icp_query(0b11, 2);
  record_icp_send_failure(q, 1);  // the socket refused its datagram
  expire_icp_query(q);
  EXPECT_EQ(icp_health_after(0, q.result).went_down, 0b01U);
}

}  // namespace
}  // namespace sumcache::daemon
