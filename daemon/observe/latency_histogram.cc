#include "daemon/observe/latency_histogram.h"

#include <bit>
#include <limits>

namespace sumcache::daemon {
namespace {

constexpr std::uint64_t kFirstBound = std::uint64_t{1} << kHistogramMinOctave;
constexpr std::uint64_t kLastBound = std::uint64_t{1} << kHistogramMaxOctave;
constexpr std::size_t kOverflow = kHistogramBuckets - 1;

}  // namespace

std::size_t histogram_bucket(std::uint64_t micros) {
  if (micros <= kFirstBound) return 0;
  if (micros > kLastBound) return kOverflow;
  // v - 1 puts a value equal to a bound into the bucket it closes.
  const std::uint64_t w = micros - 1;
  const auto octave = static_cast<unsigned>(std::bit_width(w) - 1);
  const auto sub = static_cast<std::size_t>((w >> (octave - 2)) & (kHistogramSubBuckets - 1));
  return 1 + (octave - kHistogramMinOctave) * kHistogramSubBuckets + sub;
}

std::uint64_t histogram_upper_bound(std::size_t bucket) {
  if (bucket == 0) return kFirstBound;
  if (bucket >= kOverflow) return std::numeric_limits<std::uint64_t>::max();
  const std::size_t i = bucket - 1;
  const unsigned octave = kHistogramMinOctave + static_cast<unsigned>(i / kHistogramSubBuckets);
  const std::uint64_t sub = i % kHistogramSubBuckets;
  return (std::uint64_t{1} << octave) + (sub + 1) * (std::uint64_t{1} << (octave - 2));
}

std::uint64_t histogram_lower_bound(std::size_t bucket) {
  return bucket == 0 ? 0 : histogram_upper_bound(bucket - 1);
}

double HistogramSnapshot::quantile_micros(double q) const {
  if (count == 0) return 0;
  const double rank = q * static_cast<double>(count);
  std::uint64_t below = 0;
  for (std::size_t b = 0; b < counts.size(); ++b) {
    if (counts[b] == 0 || static_cast<double>(below + counts[b]) < rank) {
      below += counts[b];
      continue;
    }
    const auto lower = static_cast<double>(histogram_lower_bound(b));
    if (b == kOverflow) return lower;
    const auto width = static_cast<double>(histogram_upper_bound(b)) - lower;
    const double into = (rank - static_cast<double>(below)) / static_cast<double>(counts[b]);
    return lower + width * (into < 0 ? 0 : into);
  }
  return static_cast<double>(histogram_lower_bound(kOverflow));
}

std::uint64_t HistogramSnapshot::count_at_most(std::uint64_t bound_micros) const {
  std::uint64_t n = 0;
  for (std::size_t b = 0; b < counts.size() && histogram_upper_bound(b) <= bound_micros; ++b) {
    n += counts[b];
  }
  return n;
}

void HistogramSnapshot::add(const HistogramSnapshot& other) {
  for (std::size_t b = 0; b < counts.size(); ++b) counts[b] += other.counts[b];
  count += other.count;
  sum_micros += other.sum_micros;
}

HistogramSnapshot LatencyHistogram::snapshot() const {
  HistogramSnapshot s;
  for (std::size_t b = 0; b < counts_.size(); ++b) {
    s.counts[b] = counts_[b].load(std::memory_order_relaxed);
    s.count += s.counts[b];
  }
  s.sum_micros = sum_micros_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace sumcache::daemon
