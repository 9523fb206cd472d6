#include "daemon/observe/rate_window.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

// At second t the counters stand at t requests, t / 2 local hits and 100 t bytes.
WindowTotals totals_at(std::int64_t t) {
  const auto n = static_cast<std::uint64_t>(t);
  return {n, n / 2, 0, 100 * n, 50 * n, 0};
}

TEST(RateWindow, AMinuteIsTheChangeSinceTheSampleAMinuteAgo) {
  RateWindow w(0);
  for (std::int64_t t = 0; t <= 400; ++t) w.sample(t, totals_at(t));
  const auto m1 = w.over(400, totals_at(400), 60);
  EXPECT_EQ(m1.seconds, 60);
  EXPECT_EQ(m1.delta.requests, 60U);
  EXPECT_EQ(m1.delta.local_hits, 30U);
  EXPECT_EQ(m1.delta.bytes, 6000U);
  const auto m5 = w.over(400, totals_at(400), 300);
  EXPECT_EQ(m5.seconds, 300);
  EXPECT_EQ(m5.delta.requests, 300U);
}

TEST(RateWindow, LiveTotalsCountUpToNowBetweenSamples) {
  RateWindow w(0);
  for (std::int64_t t = 0; t <= 100; ++t) w.sample(t, totals_at(t));
  WindowTotals live = totals_at(100);
  live.requests += 7;  // arrived since the last sample
  EXPECT_EQ(w.over(100, live, 60).delta.requests, 67U);
}

TEST(RateWindow, AYoungWindowCoversTheTimeSinceStart) {
  RateWindow w(0);
  for (std::int64_t t = 0; t <= 20; ++t) w.sample(t, totals_at(t));
  const auto m1 = w.over(20, totals_at(20), 60);
  EXPECT_EQ(m1.seconds, 20);
  EXPECT_EQ(m1.delta.requests, 20U);
}

TEST(RateWindow, MissedSamplesUseTheNewestOlderOne) {
  RateWindow w(0);
  for (std::int64_t t = 0; t <= 200; ++t) {
    if (t < 135 || t > 145) w.sample(t, totals_at(t));  // the sampler stalled 135..145
  }
  const auto m1 = w.over(200, totals_at(200), 60);  // wants t = 140, finds t = 134
  EXPECT_EQ(m1.seconds, 66);
  EXPECT_EQ(m1.delta.requests, 66U);
}

TEST(RateWindow, SlotsOlderThanFiveMinutesAreNeverUsed) {
  RateWindow w(0);
  w.sample(0, totals_at(0));
  w.sample(10, totals_at(10));
  // Nothing sampled since second 10: the ring's old slot must not pass for a recent one.
  const auto m1 = w.over(1000, totals_at(1000), 60);
  EXPECT_EQ(m1.seconds, 1000);
  EXPECT_EQ(m1.delta.requests, 1000U);
}

TEST(RateWindow, CountersThatSeemToGoBackReadAsNoChange) {
  const WindowTotals later{5, 1, 0, 10, 0, 0};
  const WindowTotals earlier{6, 1, 0, 8, 0, 0};
  const auto d = later.minus(earlier);
  EXPECT_EQ(d.requests, 0U);
  EXPECT_EQ(d.bytes, 2U);
}

}  // namespace
}  // namespace sumcache::daemon
