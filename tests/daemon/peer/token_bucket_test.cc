#include "daemon/peer/token_bucket.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

using namespace std::chrono_literals;

TEST(TokenBucket, LetsABurstThroughThenOneTokenPerInterval) {
  TokenBucket bucket(2, 3);  // 2 a second, 3 at once
  const TokenBucket::Clock::time_point t0{std::chrono::hours(1)};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(bucket.wait(t0), TokenBucket::Clock::duration::zero());
    bucket.take(t0);
  }
  EXPECT_EQ(bucket.wait(t0), std::chrono::duration_cast<TokenBucket::Clock::duration>(500ms));
  EXPECT_GT(bucket.wait(t0 + 499ms), TokenBucket::Clock::duration::zero());
  EXPECT_EQ(bucket.wait(t0 + 500ms), TokenBucket::Clock::duration::zero());
  bucket.take(t0 + 500ms);
  // Idle time refills up to the burst, not beyond.
  const auto later = t0 + 1h;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(bucket.wait(later), TokenBucket::Clock::duration::zero());
    bucket.take(later);
  }
  EXPECT_GT(bucket.wait(later), TokenBucket::Clock::duration::zero());
}

}  // namespace
}  // namespace sumcache::daemon
