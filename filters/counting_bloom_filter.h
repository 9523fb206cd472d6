#pragma once
// A counting Bloom filter with 4-bit saturating counters, as in Summary Cache
// (Fan, Cao, Almeida and Broder, SIGCOMM 1998): a node counts the URLs it
// caches; peers get only the bit view (counter > 0) and the bit positions that
// flipped since the last push. Probes are BloomFilter's, so the bit view is the
// BloomFilter of the same keys. Layout and change log: docs/filters_counting.md.

#include <cstdint>
#include <span>
#include <string_view>
#include <system_error>
#include <vector>

#include "filters/bloom_filter.h"
#include "filters/change_log.h"
#include "filters/filter_params.h"
#include "filters/hashing.h"
#include "filters/huge_page_allocator.h"
#include "filters/result.h"

namespace sumcache::filters {

class CountingBloomFilter {
 public:
  // A counter that reaches 15 stays there, also on remove. Summary Cache bounds
  // the chance that any counter would exceed 15 by 1.37e-15 * m.
  static constexpr std::uint8_t kMaxCount = 15;
  // The change log holds up to max(512, m / 64) changes: from m = 32768 on,
  // its table never outgrows the counters (docs/filters_counting.md).
  static constexpr std::uint64_t kCountersPerLoggedChange = 64;
  // Log slots reserved up front (8 KiB), or 2m if fewer: no allocation on the
  // hot path until a window's net changes first pass half of them.
  static constexpr std::size_t kInitialLogSlots = 1024;

  static Result<CountingBloomFilter> create(BloomParams params, Hasher hasher = {});
  static Result<CountingBloomFilter> for_capacity(std::uint64_t n, double p, Hasher hasher = {});

  void add(std::string_view key) { add(hasher_(key)); }
  void add(const Hash128& h);
  // Refuses with remove_underflow, changing nothing but refused_removes(), if
  // any of the k counters would go below zero (counting repeated probes).
  std::error_code remove(std::string_view key) { return remove(hasher_(key)); }
  std::error_code remove(const Hash128& h);
  bool contains(std::string_view key) const { return contains(hasher_(key)); }
  bool contains(const Hash128& h) const;

  // Requires i < m.
  std::uint8_t counter(std::uint64_t i) const {
    return static_cast<std::uint8_t>((counters_[i >> 1] >> ((i & 1) << 2)) & 0x0F);
  }
  // counter > 0, as a BloomFilter with the same params and hasher: the summary.
  BloomFilter bit_view() const;
  std::uint64_t count_nonzero() const { return nonzero_; }
  std::uint64_t saturated_counters() const { return saturated_; }
  std::uint64_t refused_removes() const { return refused_removes_; }

  // Change log: a peer holding the bit view as of the last mark() gets the
  // current one by flipping the positions listed, in ascending order. Before
  // the first mark(), and once more changes are pending than the log holds,
  // the answer is change_log_overflow: push bit_view() in full.
  void mark();
  Result<std::vector<std::uint64_t>> changed_since_mark() const;
  // changed_since_mark() and mark() in one step, as the summary publisher
  // does; marks on change_log_overflow too.
  Result<std::vector<std::uint64_t>> take_changes();
  bool changes_logged() const { return changes_.logging(); }
  // Exact while changes_logged(); otherwise change_log_cap() + 1: more are pending.
  std::size_t pending_changes() const { return changes_.pending(); }
  std::size_t change_log_cap() const { return changes_.cap(); }
  std::size_t change_log_bytes() const { return changes_.memory_bytes(); }

  const BloomParams& params() const { return params_; }
  const Hasher& hasher() const { return hasher_; }
  // Byte i holds counter 2i in its low nibble and counter 2i + 1 in its high one.
  std::span<const std::uint8_t> counter_bytes() const { return counters_; }
  std::size_t memory_bytes() const { return counters_.size(); }

 private:
  CountingBloomFilter(BloomParams params, Hasher hasher);
  // Writes the k probe positions of h and prefetches their counters.
  void locate(const Hash128& h, std::uint64_t* positions) const;

  BloomParams params_;
  Hasher hasher_;
  FilterArray<std::uint8_t> counters_;
  ChangeLog changes_;  // counters that left or reached zero since mark(), in probe order
  std::uint64_t nonzero_ = 0;
  std::uint64_t saturated_ = 0;
  std::uint64_t refused_removes_ = 0;
};

}  // namespace sumcache::filters
