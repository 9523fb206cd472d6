#include "filters/scalable_bloom_filter.h"

#include <cmath>
#include <limits>

#include "filters/filter_error.h"

namespace sumcache::filters {

ScalableBloomFilter::ScalableBloomFilter(double fpr, std::uint32_t growth, double tightening,
                                         Hasher hasher, std::uint64_t max_bits)
    : first_fpr_(fpr * (1.0 - tightening)),
      growth_(growth),
      tightening_(tightening),
      hasher_(hasher),
      max_bits_(max_bits) {}

Result<ScalableBloomFilter> ScalableBloomFilter::create(std::uint64_t initial_capacity, double fpr,
                                                        std::uint32_t growth, double tightening,
                                                        Hasher hasher, std::uint64_t max_bits) {
  if (initial_capacity == 0) return make_error_code(FilterErrc::invalid_entries);
  if (!(fpr > 0.0 && fpr < 1.0)) return make_error_code(FilterErrc::invalid_fpr);
  // Growth 1 would add a sub-filter every initial_capacity keys: lookups would slow
  // down linearly in the keys. Outside (0, 1) the rates do not shrink or sum to fpr.
  if (growth < 2 || !(tightening > 0.0 && tightening < 1.0)) {
    return make_error_code(FilterErrc::invalid_growth);
  }
  ScalableBloomFilter filter(fpr, growth, tightening, hasher, max_bits);
  if (auto ec = filter.append_filter(initial_capacity)) return ec;
  return filter;
}

// Sub-filter i = filters_.size() gets rate P0 r^i with P0 = fpr (1 - r), so the series
// sum_i P0 r^i = P0 / (1 - r) is fpr (Almeida et al. 2007).
std::error_code ScalableBloomFilter::append_filter(std::uint64_t capacity) {
  const double rate = first_fpr_ * std::pow(tightening_, static_cast<double>(filters_.size()));
  // r^i underflowed to 0: no finite filter meets that rate.
  if (!(rate > 0.0)) return FilterErrc::size_overflow;
  auto params = optimal_params(capacity, rate);
  if (!params) return params.error();
  if (params->m > max_bits_ - bits_) return FilterErrc::size_overflow;
  auto filter = BloomFilter::create(*params, hasher_);
  if (!filter) return filter.error();
  filters_.push_back(std::move(filter).value());
  capacities_.push_back(capacity);
  newest_count_ = 0;
  capacity_ += capacity;
  bits_ += params->m;
  return {};
}

Result<bool> ScalableBloomFilter::add(const Hash128& h) {
  // A key that looks present is not added again: a duplicate would spend capacity
  // and push growth, which tightens every later rate, for no new information.
  if (contains(h)) return false;
  if (newest_count_ == capacities_.back()) {
    const std::uint64_t full = capacities_.back();
    if (full > std::numeric_limits<std::uint64_t>::max() / growth_) {
      return make_error_code(FilterErrc::size_overflow);
    }
    if (auto ec = append_filter(full * growth_)) return ec;
  }
  filters_.back().add(h);
  ++newest_count_;
  ++size_;
  return true;
}

bool ScalableBloomFilter::contains(const Hash128& h) const {
  // Newest first: it is the largest and holds most of the keys (as RedisBloom does).
  for (auto it = filters_.rbegin(); it != filters_.rend(); ++it) {
    if (it->contains(h)) return true;
  }
  return false;
}

std::size_t ScalableBloomFilter::memory_bytes() const {
  std::size_t total = 0;
  for (const BloomFilter& f : filters_) total += f.memory_bytes();
  return total;
}

double ScalableBloomFilter::expected_fpr() const {
  double all_negative = 1.0;
  for (std::size_t i = 0; i < filters_.size(); ++i) {
    const std::uint64_t n = i + 1 == filters_.size() ? newest_count_ : capacities_[i];
    all_negative *= 1.0 - filters::expected_fpr(filters_[i].params(), n);
  }
  return 1.0 - all_negative;
}

}  // namespace sumcache::filters
