#include "daemon/peer/redis_keys.h"

#include <gtest/gtest.h>

#include <array>

namespace sumcache::daemon {
namespace {

TEST(RedisKeys, NamesEveryKeyUnderThePrefix) {
  const RedisKeys keys("sc");
  EXPECT_EQ(keys.members(), "sc:members");
  EXPECT_EQ(keys.seen(), "sc:seen");
  EXPECT_EQ(keys.full("node-1"), "sc:node:node-1:full");
  EXPECT_EQ(keys.deltas("node-1"), "sc:node:node-1:deltas");
}

// FNV-1a 64's published vectors: "" is the offset basis, "a" is 0xaf63dc4c8601ec8c.
TEST(RedisKeys, ShardIsFnv1a64ModTheServers) {
  EXPECT_EQ(redis_shard("", 1000), 0xcbf29ce484222325ULL % 1000);
  EXPECT_EQ(redis_shard("a", 7), 0xaf63dc4c8601ec8cULL % 7);
  EXPECT_EQ(redis_shard("anything", 1), 0U);
  EXPECT_EQ(redis_shard("anything", 0), 0U);
}

TEST(RedisKeys, ShardSpreadsNodeIdsOverTheServers) {
  std::array<int, 4> count{};
  for (int i = 0; i < 400; ++i) ++count[redis_shard("node-" + std::to_string(i), 4)];
  for (const int c : count) {
    EXPECT_GT(c, 60);
    EXPECT_LT(c, 140);
  }
}

TEST(RedisKeys, StreamIdsRoundTripTheSequence) {
  EXPECT_EQ(stream_id(0), "0-0");
  EXPECT_EQ(stream_id(42), "42-0");
  EXPECT_EQ(parse_stream_id("42-0"), 42U);
  EXPECT_EQ(parse_stream_id("0-0"), 0U);
  EXPECT_EQ(parse_stream_id("18446744073709551615-0"), 18446744073709551615ULL);
}

TEST(RedisKeys, StreamIdsOfOtherWritersAreRefused) {
  for (const char* bad : {"", "-0", "42", "42-1", "42-00", "042-0", "+42-0", "4a-0", " 42-0",
                          "18446744073709551616-0", "1732475000123-0x", "42-0-0"}) {
    EXPECT_FALSE(parse_stream_id(bad)) << bad;
  }
}

}  // namespace
}  // namespace sumcache::daemon
