#include "daemon/peer/cluster_invalidations.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

using protocol::InvalidationKind;

protocol::InvalidationAck ack_from(const std::string& peer, std::uint64_t through) {
  return {peer, "node-a", 7, through};
}

TEST(ClusterInvalidations, TagAndPrefixPurgesStandUntilEveryPeerAcknowledges) {
  ClusterInvalidations inv("node-a", 7, {"node-b", "node-c"});
  EXPECT_EQ(inv.add(InvalidationKind::tag, "red", 1000).sequence, 1U);
  EXPECT_EQ(inv.add(InvalidationKind::prefix, "http://h/static/", 1001).sequence, 2U);
  EXPECT_TRUE(inv.any_tag_tombstone());
  EXPECT_TRUE(inv.tag_tombstoned({"blue", "red"}));
  EXPECT_FALSE(inv.tag_tombstoned({"blue"}));
  EXPECT_TRUE(inv.tombstoned("http://h/static/app.js"));
  EXPECT_FALSE(inv.tombstoned("http://h/other"));
  // Both go out as their own kinds, in sequence.
  const auto batch = inv.batch_for("node-b");
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->entries.size(), 2U);
  EXPECT_EQ(batch->entries[0].kind, InvalidationKind::tag);
  EXPECT_EQ(batch->entries[1].kind, InvalidationKind::prefix);

  ASSERT_EQ(inv.ack(ack_from("node-b", 2)), protocol::AckOutcome::accepted);
  EXPECT_TRUE(inv.tag_tombstoned({"red"}));  // node-c has not acknowledged yet
  ASSERT_EQ(inv.ack(ack_from("node-c", 1)), protocol::AckOutcome::accepted);
  EXPECT_FALSE(inv.any_tag_tombstone());
  EXPECT_TRUE(inv.tombstoned("http://h/static/app.js"));
  ASSERT_EQ(inv.ack(ack_from("node-c", 2)), protocol::AckOutcome::accepted);
  EXPECT_FALSE(inv.tombstoned("http://h/static/app.js"));
  EXPECT_EQ(inv.stats().tombstones, 0U);
}

TEST(ClusterInvalidations, WithoutPeersNothingStands) {
  ClusterInvalidations inv("node-a", 7, {});
  EXPECT_EQ(inv.add(InvalidationKind::tag, "red", 1000).sequence, 1U);
  EXPECT_FALSE(inv.any_tag_tombstone());
}

TEST(ClusterInvalidations, PatternTombstonesAreBoundedTheOldestDropped) {
  ClusterInvalidations inv("node-a", 7, {"node-b"});
  for (std::size_t i = 0; i < kMaxPatternTombstones; ++i) {
    EXPECT_FALSE(inv.add(InvalidationKind::tag, "t" + std::to_string(i), 1).tombstone_dropped);
  }
  EXPECT_TRUE(inv.add(InvalidationKind::tag, "one-more", 1).tombstone_dropped);
  EXPECT_FALSE(inv.tag_tombstoned({"t0"}));
  EXPECT_TRUE(inv.tag_tombstoned({"one-more"}));
  EXPECT_EQ(inv.stats().tombstones_dropped, 1U);
}

}  // namespace
}  // namespace sumcache::daemon
