#pragma once
// A Bloom filter that grows with the keys added and still keeps its false
// positive rate under a target: a chain of plain BloomFilters whose capacities
// grow and whose error rates tighten geometrically (Almeida, Baquero, Preguiça
// and Hutchison, "Scalable Bloom Filters", IPL 101(6), 2007), grown lazily and
// skipping keys that look present, as RedisBloom's SBChain_Add does (src/sb.c).
// Scheme, bound, memory and cap: docs/filters_scalable.md.

#include <cstdint>
#include <string_view>
#include <vector>

#include "filters/bloom_filter.h"
#include "filters/filter_params.h"
#include "filters/hashing.h"
#include "filters/result.h"

namespace sumcache::filters {

class ScalableBloomFilter {
 public:
  // Sub-filter i holds initial_capacity * growth^i keys at error fpr (1 - r) r^i, r the
  // tightening ratio, so however many keys arrive the rates sum to less than fpr.
  // growth >= 2 and r in (0, 1), else invalid_growth. max_bits caps the bits of all
  // sub-filters together; size_overflow if the first one alone exceeds it.
  static Result<ScalableBloomFilter> create(std::uint64_t initial_capacity, double fpr,
                                            std::uint32_t growth = 2, double tightening = 0.85,
                                            Hasher hasher = {}, std::uint64_t max_bits = kMaxBits);

  // *result is true if the key was added, false if it was, or looked, present already;
  // then nothing changes, so repeats use no capacity. size_overflow, and nothing
  // changes, if a new sub-filter is needed and cannot be made: past max_bits or
  // kMaxBits, or 64-bit capacity. Beware that `if (f.add(key))` tests for success,
  // not for insertion.
  Result<bool> add(std::string_view key) { return add(hasher_(key)); }
  Result<bool> add(const Hash128& h);
  bool contains(std::string_view key) const { return contains(hasher_(key)); }
  bool contains(const Hash128& h) const;

  // Keys added, counted; keys that looked present were not added and are not counted.
  std::uint64_t size() const { return size_; }
  // Sum of the sub-filters' capacities. Growth is lazy, so this equals size() when full.
  std::uint64_t capacity() const { return capacity_; }
  std::size_t filter_count() const { return filters_.size(); }
  // The sub-filters' bit arrays.
  std::size_t memory_bytes() const;
  // The model's rate at the current fill: 1 - prod_i (1 - expected_fpr(params_i, n_i)),
  // n_i the keys counted in sub-filter i. Not the bound fpr, which it approaches from
  // below only as sub-filters fill.
  double expected_fpr() const;
  const Hasher& hasher() const { return hasher_; }

 private:
  ScalableBloomFilter(double fpr, std::uint32_t growth, double tightening, Hasher hasher,
                      std::uint64_t max_bits);
  std::error_code append_filter(std::uint64_t capacity);

  double first_fpr_;
  std::uint32_t growth_;
  double tightening_;
  Hasher hasher_;
  std::uint64_t max_bits_;
  std::vector<BloomFilter> filters_;
  std::vector<std::uint64_t> capacities_;  // of filters_[i]; all but the last are full
  std::uint64_t newest_count_ = 0;         // keys in filters_.back()
  std::uint64_t size_ = 0;
  std::uint64_t capacity_ = 0;
  std::uint64_t bits_ = 0;  // sum of the sub-filters' m
};

}  // namespace sumcache::filters
