#include "daemon/log/log_limiter.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

using namespace std::chrono_literals;

TEST(LogLimiter, LetsOneLineAnIntervalThroughAndCountsTheRest) {
  LogLimiter limiter(1s);
  const LogLimiter::Clock::time_point t0{};
  EXPECT_EQ(limiter.admit(t0 + 10s), 0u);
  EXPECT_FALSE(limiter.admit(t0 + 10s));
  EXPECT_FALSE(limiter.admit(t0 + 10s + 999ms));
  EXPECT_EQ(limiter.admit(t0 + 11s), 2u);
  EXPECT_EQ(limiter.admit(t0 + 20s), 0u);
}

}  // namespace
}  // namespace sumcache::daemon
