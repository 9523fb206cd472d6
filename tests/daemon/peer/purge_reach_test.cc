#include "daemon/peer/purge_reach.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

using Ids = std::vector<std::string>;

TEST(PurgeReach, WithoutPeersOnlyThisNodeCounts) {
  const PurgeReach r = purge_reach(7, {});
  EXPECT_EQ(r.acked, 1U);
  EXPECT_EQ(r.total, 1U);
  EXPECT_TRUE(r.complete());
}

TEST(PurgeReach, APeerHasItOnceItAcknowledgedTheSequence) {
  const PurgeReach r = purge_reach(5, {{"node-b", 5}, {"node-c", 4}, {"node-d", 9}});
  EXPECT_EQ(r.acked, 3U);
  EXPECT_EQ(r.total, 4U);
  EXPECT_EQ(r.pending, Ids{"node-c"});
  EXPECT_FALSE(r.complete());
}

TEST(PurgeReach, APurgeNeverSentIsPendingEverywhereElse) {
  const PurgeReach r = purge_reach(0, {{"node-b", 3}, {"node-c", 0}});
  EXPECT_EQ(r.acked, 1U);
  EXPECT_EQ(r.total, 3U);
  EXPECT_EQ(r.pending, (Ids{"node-b", "node-c"}));
}

}  // namespace
}  // namespace sumcache::daemon
