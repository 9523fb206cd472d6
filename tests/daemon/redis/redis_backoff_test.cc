// The reconnect wait of RedisLink: 100 ms doubling to its cap (at most 5 s, a
// quarter of the member expiry), jittered within [half, all].

#include "daemon/redis/redis_backoff.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

using std::chrono::milliseconds;

TEST(RedisBackoff, DoublesFromAHundredMillisecondsToFiveSeconds) {
  EXPECT_EQ(redis_backoff(0, 0.999999), milliseconds(99));
  EXPECT_EQ(redis_backoff(1, 0.999999), milliseconds(199));
  EXPECT_EQ(redis_backoff(5, 0.999999), milliseconds(3199));
  EXPECT_EQ(redis_backoff(6, 0.999999), milliseconds(4999));
  EXPECT_EQ(redis_backoff(1000, 0.999999), milliseconds(4999));
}

TEST(RedisBackoff, JitterNeverWaitsLessThanHalf) {
  EXPECT_EQ(redis_backoff(0, 0.0), milliseconds(50));
  EXPECT_EQ(redis_backoff(3, 0.5), milliseconds(600));
  EXPECT_EQ(redis_backoff(40, 0.0), milliseconds(2500));
  EXPECT_EQ(redis_backoff(2, -1.0), milliseconds(200));  // out-of-range draws are clamped
  EXPECT_EQ(redis_backoff(2, 7.0), milliseconds(400));
}

// The cap is below the member expiry, so a node back after Redis restarted
// empty heartbeats before the others may drop it (cluster.redis.member_expiry_ms).
TEST(RedisBackoff, TheCapIsAQuarterOfTheMemberExpiryWithinItsBounds) {
  EXPECT_EQ(redis_backoff_max(milliseconds(5000)), milliseconds(1250));  // the default expiry
  EXPECT_EQ(redis_backoff_max(milliseconds(1000)), milliseconds(250));
  EXPECT_EQ(redis_backoff_max(milliseconds(200)), milliseconds(100));         // the least expiry
  EXPECT_EQ(redis_backoff_max(milliseconds(3'600'000)), milliseconds(5000));  // the most
  for (const auto expiry : {milliseconds(200), milliseconds(1000), milliseconds(5000),
                            milliseconds(20'000), milliseconds(3'600'000)}) {
    const auto cap = redis_backoff_max(expiry);
    for (unsigned attempt = 0; attempt < 64; ++attempt) {
      EXPECT_LE(redis_backoff(attempt, 0.999999, cap), cap);
      EXPECT_LT(redis_backoff(attempt, 0.999999, cap), expiry);
    }
  }
}

TEST(RedisBackoff, DoublesUpToTheCapGiven) {
  EXPECT_EQ(redis_backoff(1, 0.999999, milliseconds(250)), milliseconds(199));
  EXPECT_EQ(redis_backoff(2, 0.999999, milliseconds(250)), milliseconds(249));
  EXPECT_EQ(redis_backoff(30, 0.0, milliseconds(250)), milliseconds(125));
}

}  // namespace
}  // namespace sumcache::daemon
