#include "daemon/peer/tombstone_table.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

TEST(TombstoneTable, AKeyIsCoveredUntilItsSequenceIsReleased) {
  TombstoneTable t;
  EXPECT_FALSE(t.covers("http://a/x"));
  EXPECT_FALSE(t.add("http://a/x", 1));
  EXPECT_FALSE(t.add("http://a/y", 2));
  EXPECT_TRUE(t.covers("http://a/x"));
  EXPECT_FALSE(t.covers("http://a/z"));
  EXPECT_EQ(t.release_through(1), 1U);
  EXPECT_FALSE(t.covers("http://a/x"));
  EXPECT_TRUE(t.covers("http://a/y"));
  EXPECT_EQ(t.release_through(1), 0U);
  EXPECT_EQ(t.release_through(5), 1U);
  EXPECT_EQ(t.size(), 0U);
}

TEST(TombstoneTable, APurgeAgainKeepsTheLaterSequence) {
  TombstoneTable t;
  t.add("http://a/x", 1);
  t.add("http://a/y", 2);
  t.add("http://a/x", 3);
  EXPECT_EQ(t.size(), 2U);
  // Acknowledging the first purge does not release the second one of the same key.
  EXPECT_EQ(t.release_through(2), 1U);
  EXPECT_TRUE(t.covers("http://a/x"));
  EXPECT_FALSE(t.covers("http://a/y"));
  EXPECT_EQ(t.release_through(3), 1U);
  EXPECT_FALSE(t.covers("http://a/x"));
}

TEST(TombstoneTable, BeyondItsCapacityTheOldestIsDropped) {
  TombstoneTable t(2);
  EXPECT_FALSE(t.add("k1", 1));
  EXPECT_FALSE(t.add("k2", 2));
  EXPECT_TRUE(t.add("k3", 3));
  EXPECT_EQ(t.size(), 2U);
  EXPECT_FALSE(t.covers("k1"));
  EXPECT_TRUE(t.covers("k2"));
  EXPECT_TRUE(t.covers("k3"));
  // Purging a key again within the table drops nothing.
  EXPECT_FALSE(t.add("k2", 4));
  EXPECT_TRUE(t.add("k5", 5));
  EXPECT_FALSE(t.covers("k3"));
  EXPECT_TRUE(t.covers("k2"));
}

TEST(TombstoneTable, AnOlderSequenceForAHeldKeyChangesNothing) {
  TombstoneTable t;
  t.add("k", 5);
  t.add("k", 3);
  EXPECT_EQ(t.release_through(4), 0U);
  EXPECT_TRUE(t.covers("k"));
}

TEST(TombstoneTable, ACapacityOfZeroHoldsOne) {
  TombstoneTable t(0);
  EXPECT_EQ(t.capacity(), 1U);
  EXPECT_FALSE(t.add("k", 1));
  EXPECT_TRUE(t.covers("k"));
}

TEST(TombstoneTable, APrefixTableCoversEveryKeyUnderAStandingPrefix) {
  TombstoneTable t(kMaxPatternTombstones);
  t.add("http://a/static/", 1);
  EXPECT_TRUE(t.covers_prefix_of("http://a/static/x.css"));
  EXPECT_TRUE(t.covers_prefix_of("http://a/static/"));
  EXPECT_FALSE(t.covers_prefix_of("http://a/static"));
  EXPECT_FALSE(t.covers_prefix_of("http://b/static/x.css"));
  t.release_through(1);
  EXPECT_FALSE(t.covers_prefix_of("http://a/static/x.css"));
}

}  // namespace
}  // namespace sumcache::daemon
