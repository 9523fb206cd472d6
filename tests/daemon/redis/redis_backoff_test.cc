// The reconnect wait of RedisLink: 100 ms doubling to 5 s, jittered within [half, all].

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

}  // namespace
}  // namespace sumcache::daemon
