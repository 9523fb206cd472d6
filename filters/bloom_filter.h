#pragma once
// A plain Bloom filter: m bits in 64-bit words, k probes per key from one
// 128-bit hash (see hashing.h). Also the bit view of a CountingBloomFilter and
// the form in which a peer's summary is held.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "filters/bit_change.h"
#include "filters/filter_params.h"
#include "filters/hashing.h"
#include "filters/huge_page_allocator.h"
#include "filters/result.h"

namespace sumcache::filters {

class BloomFilter {
 public:
  static Result<BloomFilter> create(BloomParams params, Hasher hasher = {});
  static Result<BloomFilter> for_capacity(std::uint64_t n, double p, Hasher hasher = {});

  void add(std::string_view key) { add(hasher_(key)); }
  void add(const Hash128& h);
  // Adds and reports whether any bit changed (Guava's put): false means the
  // key was, or looked, present already.
  bool add_changed(std::string_view key) { return add_changed(hasher_(key)); }
  bool add_changed(const Hash128& h);
  bool contains(std::string_view key) const { return contains(hasher_(key)); }
  bool contains(const Hash128& h) const;

  // Both filters must have equal m, k and hasher.
  std::error_code union_with(const BloomFilter& other);
  std::error_code intersect_with(const BloomFilter& other);
  void clear();
  friend bool operator==(const BloomFilter&, const BloomFilter&) = default;

  bool test_bit(std::uint64_t i) const { return (words_[i >> 6] >> (i & 63)) & 1U; }
  void set_bit(std::uint64_t i, bool value);
  std::uint64_t count_set_bits() const;
  double estimated_fpr() const { return fpr_from_fill(params_, count_set_bits()); }
  double estimated_cardinality() const { return estimate_cardinality(params_, count_set_bits()); }

  const BloomParams& params() const { return params_; }
  const Hasher& hasher() const { return hasher_; }
  std::span<const std::uint64_t> words() const { return words_; }
  std::size_t memory_bytes() const { return words_.size() * sizeof(std::uint64_t); }

  // Versioned binary form with a checksum; layout in docs/filters.md.
  std::vector<std::uint8_t> serialize() const;
  // Rejects truncated, oversized (m above max_bits), inconsistent or damaged input.
  static Result<BloomFilter> deserialize(std::span<const std::uint8_t> bytes,
                                         std::uint64_t max_bits = kMaxBits);

 private:
  BloomFilter(BloomParams params, Hasher hasher);
  BloomParams params_;
  Hasher hasher_;
  FilterArray<std::uint64_t> words_;
};

// "Bit i is now v" for every bit where `to` differs from `from`, in position
// order: a summary delta between two views. Both must have the same params.
std::vector<BitChange> bit_differences(const BloomFilter& from, const BloomFilter& to);

}  // namespace sumcache::filters
