#pragma once
// Request latencies in fixed buckets, recorded from every worker with relaxed
// atomics. Buckets are log-linear, as in HdrHistogram: each power of two of
// microseconds is cut into 4 equal parts, so a bucket is at most 25% wide and
// a percentile read from the buckets is off by less than that. Everything up
// to 32 µs shares the first bucket; past 2^26 µs (67 s) is the overflow one.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace sumcache::daemon {

inline constexpr unsigned kHistogramMinOctave = 5;   // first bucket: [0, 32 µs]
inline constexpr unsigned kHistogramMaxOctave = 26;  // last finite bound: 2^26 µs
inline constexpr unsigned kHistogramSubBuckets = 4;
inline constexpr std::size_t kHistogramBuckets =
    1 + (kHistogramMaxOctave - kHistogramMinOctave) * kHistogramSubBuckets + 1;

// Bucket b holds values v with lower(b) < v <= upper(b) (µs); the last one's
// upper bound is infinite (UINT64_MAX here).
std::size_t histogram_bucket(std::uint64_t micros);
std::uint64_t histogram_upper_bound(std::size_t bucket);
std::uint64_t histogram_lower_bound(std::size_t bucket);

struct HistogramSnapshot {
  std::array<std::uint64_t, kHistogramBuckets> counts{};
  std::uint64_t count = 0;
  std::uint64_t sum_micros = 0;

  // The q-quantile (0 < q <= 1) in µs, interpolated linearly inside its
  // bucket as Prometheus's histogram_quantile does; 0 when empty. A quantile
  // in the overflow bucket reads as that bucket's lower bound.
  double quantile_micros(double q) const;
  // Values <= bound_micros; exact when bound_micros is a bucket's upper bound.
  std::uint64_t count_at_most(std::uint64_t bound_micros) const;
  // Adds another histogram's counts: the workers' histograms summed.
  void add(const HistogramSnapshot& other);
};

class LatencyHistogram {
 public:
  void record(std::uint64_t micros) {
    counts_[histogram_bucket(micros)].fetch_add(1, std::memory_order_relaxed);
    sum_micros_.fetch_add(micros, std::memory_order_relaxed);
  }
  // Not one instant: each bucket is exact on its own; count is the buckets' sum.
  HistogramSnapshot snapshot() const;

 private:
  std::array<std::atomic<std::uint64_t>, kHistogramBuckets> counts_{};
  std::atomic<std::uint64_t> sum_micros_{0};
};

}  // namespace sumcache::daemon
