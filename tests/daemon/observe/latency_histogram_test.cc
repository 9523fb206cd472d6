#include "daemon/observe/latency_histogram.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace sumcache::daemon {
namespace {

TEST(LatencyHistogram, EveryValueFallsInsideItsBucketsBounds) {
  for (std::uint64_t v = 0; v <= (std::uint64_t{1} << 27); v = v < 4096 ? v + 1 : v + v / 97) {
    const std::size_t b = histogram_bucket(v);
    ASSERT_LT(b, kHistogramBuckets) << v;
    EXPECT_LE(v, histogram_upper_bound(b)) << v;
    if (b > 0) {
      EXPECT_GT(v, histogram_lower_bound(b)) << v;
    }
  }
}

TEST(LatencyHistogram, BoundsRiseAndNoBucketIsWiderThanAQuarterOfItsLowerBound) {
  for (std::size_t b = 1; b + 1 < kHistogramBuckets; ++b) {
    const std::uint64_t lower = histogram_lower_bound(b);
    const std::uint64_t upper = histogram_upper_bound(b);
    ASSERT_GT(upper, lower) << b;
    EXPECT_LE(upper - lower, lower / 4) << b;
  }
  EXPECT_EQ(histogram_upper_bound(0), 32U);
  EXPECT_EQ(histogram_upper_bound(kHistogramBuckets - 2), std::uint64_t{1} << 26);
  EXPECT_EQ(histogram_bucket((std::uint64_t{1} << 26) + 1), kHistogramBuckets - 1);
}

TEST(LatencyHistogram, ValuesOnABoundCloseTheBucketBelow) {
  EXPECT_EQ(histogram_bucket(32), 0U);
  EXPECT_EQ(histogram_bucket(33), 1U);
  EXPECT_EQ(histogram_bucket(40), 1U);  // (32, 40]
  EXPECT_EQ(histogram_bucket(41), 2U);
  EXPECT_EQ(histogram_bucket(64), 4U);  // (56, 64]
  EXPECT_EQ(histogram_bucket(65), 5U);  // (64, 80]
}

TEST(LatencyHistogram, EmptyHistogramReadsZero) {
  const LatencyHistogram h;
  const auto s = h.snapshot();
  EXPECT_EQ(s.count, 0U);
  EXPECT_EQ(s.quantile_micros(0.5), 0.0);
}

// One bucket, (1024, 1280] µs: the quantiles interpolate linearly across it.
TEST(LatencyHistogram, QuantilesInterpolateInsideTheBucket) {
  LatencyHistogram h;
  for (int i = 0; i < 100; ++i) h.record(1100);
  const auto s = h.snapshot();
  EXPECT_EQ(s.count, 100U);
  EXPECT_EQ(s.sum_micros, 110000U);
  EXPECT_DOUBLE_EQ(s.quantile_micros(0.5), 1024 + 0.5 * 256);
  EXPECT_DOUBLE_EQ(s.quantile_micros(0.9), 1024 + 0.9 * 256);
  EXPECT_DOUBLE_EQ(s.quantile_micros(1.0), 1280);
}

TEST(LatencyHistogram, QuantilesFindTheirModeInAMixture) {
  LatencyHistogram h;
  for (int i = 0; i < 900; ++i) h.record(200);     // (192, 224]
  for (int i = 0; i < 90; ++i) h.record(5000);     // (4096, 5120]
  for (int i = 0; i < 10; ++i) h.record(900'000);  // (786432, 917504]
  const auto s = h.snapshot();
  const double p50 = s.quantile_micros(0.50);
  const double p90 = s.quantile_micros(0.90);
  const double p99 = s.quantile_micros(0.99);
  const double p999 = s.quantile_micros(0.999);
  EXPECT_GT(p50, 192);
  EXPECT_LE(p50, 224);
  EXPECT_DOUBLE_EQ(p90, 224);  // rank 900 is the last of the first bucket
  EXPECT_GT(p99, 4096);
  EXPECT_LE(p99, 5120);
  EXPECT_GT(p999, 786432);
  EXPECT_LE(p999, 917504);
}

TEST(LatencyHistogram, OverflowReadsAsItsLowerBound) {
  LatencyHistogram h;
  h.record(100'000'000);  // 100 s
  EXPECT_DOUBLE_EQ(h.snapshot().quantile_micros(0.5), static_cast<double>(1ULL << 26));
}

TEST(LatencyHistogram, CountAtMostIsCumulativeAtEachBound) {
  LatencyHistogram h;
  h.record(10);
  h.record(100);
  h.record(100);
  h.record(1000);
  const auto s = h.snapshot();
  EXPECT_EQ(s.count_at_most(32), 1U);
  EXPECT_EQ(s.count_at_most(64), 1U);
  EXPECT_EQ(s.count_at_most(128), 3U);
  EXPECT_EQ(s.count_at_most(1024), 4U);
  EXPECT_EQ(s.count_at_most(UINT64_MAX), 4U);
}

TEST(LatencyHistogram, RecordsFromManyThreadsAreAllCounted) {
  LatencyHistogram h;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&h, t] {
      for (int i = 0; i < 10000; ++i) h.record(static_cast<std::uint64_t>(t * 1000 + i % 500));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(h.snapshot().count, 40000U);
}

}  // namespace
}  // namespace sumcache::daemon
