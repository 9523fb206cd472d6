#pragma once
// A d-left counting Bloom filter (Bonomi, Mitzenmacher, Panigrahy, Singh and
// Varghese, "An improved construction for counting Bloom filters", ESA 2006):
// the function of a counting Bloom filter (add, remove, contains) in about half
// its space. d subtables of B buckets; a bucket holds a fixed number of cells,
// each a remainder of r bits and a small counter. Layout, the permutation and
// the formulas: docs/filters_dleft.md.

#include <cstdint>
#include <string_view>
#include <system_error>

#include "filters/hashing.h"
#include "filters/huge_page_allocator.h"
#include "filters/result.h"

namespace sumcache::filters {

// Defaults are the seed's and the paper's: d = 4, 8 cells per bucket, 2-bit
// counters; r = 14 is the paper's worked example (16-bit cells).
struct DleftParams {
  std::uint32_t subtables = 4;  // d, in [1, kMaxSubtables]
  std::uint64_t buckets = 0;    // B per subtable, in [1, kMaxBuckets]
  std::uint32_t cells_per_bucket = 8;
  std::uint32_t remainder_bits = 14;  // r, in [1, kMaxRemainderBits]
  std::uint32_t counter_bits = 2;     // in [1, kMaxCounterBits]; 0 marks an empty cell
  friend bool operator==(const DleftParams&, const DleftParams&) = default;
};

inline constexpr std::uint32_t kMaxSubtables = 8;
inline constexpr std::uint64_t kMaxBuckets = std::uint64_t{1} << 32;
inline constexpr std::uint32_t kMaxCellsPerBucket = 64;
inline constexpr std::uint32_t kMaxRemainderBits = 32;
inline constexpr std::uint32_t kMaxCounterBits = 8;
// Buckets hold this many cells on average at capacity: 6 of 8, the paper's
// load, at which d = 4 makes an overflowing bucket very unlikely.
inline constexpr std::uint32_t kDleftLoadPerBucket = 6;

// invalid_hashes for d, invalid_bits for a zero or oversized field,
// size_overflow past kMaxBits of cells.
std::error_code validate(const DleftParams& params);
// The seed's sizing for n keys at false positive rate p: the default d and
// cells, B = ceil(n / (d * 6)), and the smallest r whose expected_fpr(n) <= p.
Result<DleftParams> dleft_params(std::uint64_t n, double p);
// Each key's true fingerprint is one of U = B * 2^r values; a query is a false
// positive exactly when its fingerprint is held: 1 - (1 - 1/U)^n after n
// distinct keys, about d * (n / (d * B)) * 2^-r (the paper's 24 * 2^-r at d = 4
// and 6 keys per bucket).
double expected_fpr(const DleftParams& params, std::uint64_t n);

class DleftCountingFilter {
 public:
  static Result<DleftCountingFilter> create(DleftParams params, Hasher hasher = {});
  static Result<DleftCountingFilter> for_capacity(std::uint64_t n, double p, Hasher hasher = {});

  // Increments the cell of the key's fingerprint if a candidate bucket holds
  // one, else puts a new cell in the least loaded candidate bucket (leftmost
  // on ties). bucket_overflow, counted in refused_adds() and changing nothing
  // else, when the fingerprint is not held and every candidate bucket is full.
  std::error_code add(std::string_view key) { return add(hasher_(key)); }
  std::error_code add(const Hash128& h);
  // Decrements the fingerprint's cell, emptying it at zero; a saturated cell
  // stays. remove_underflow, counted in refused_removes() and changing nothing
  // else, when no cell holds the fingerprint: no key of it was ever added.
  std::error_code remove(std::string_view key) { return remove(hasher_(key)); }
  std::error_code remove(const Hash128& h);
  bool contains(std::string_view key) const { return contains(hasher_(key)); }
  bool contains(const Hash128& h) const;
  // The counter of the key's fingerprint: 0 when not held, max_count() once saturated.
  std::uint32_t count(const Hash128& h) const;

  // The key's true fingerprint, in [0, B * 2^r): keys with equal fingerprints
  // share one cell, whatever subtable it is in.
  std::uint64_t fingerprint(const Hash128& h) const;
  // The key's candidate bucket in subtable i < d.
  std::uint64_t bucket_of(const Hash128& h, std::uint32_t subtable) const;
  // Cells in use in bucket b < B of subtable i < d.
  std::uint32_t bucket_load(std::uint32_t subtable, std::uint64_t bucket) const;

  // The sum of the counters: the keys held, while no counter is saturated.
  std::uint64_t size() const { return size_; }
  // Cells in use: the distinct fingerprints held.
  std::uint64_t occupied_cells() const { return occupied_; }
  std::uint64_t saturated_counters() const { return saturated_; }
  std::uint64_t refused_adds() const { return refused_adds_; }
  std::uint64_t refused_removes() const { return refused_removes_; }
  std::uint32_t max_count() const { return max_count_; }
  // occupied_cells() / (B * 2^r): the rate a query sees now.
  double expected_fpr() const;

  const DleftParams& params() const { return params_; }
  const Hasher& hasher() const { return hasher_; }
  std::size_t memory_bytes() const { return words_.size() * sizeof(std::uint64_t); }

 private:
  __extension__ using U128 = unsigned __int128;  // GCC and Clang; -Wpedantic otherwise objects

  // A bucket is scanned in groups of cells that fit 128 bits (the whole
  // bucket up to 16-bit cells), so that a few SWAR steps test all of a
  // group's cells at once.
  struct Lanes {
    U128 cells = 0;           // all bits of the group's cells
    U128 counts = 0;          // the counter bits of each cell
    U128 one = 0;             // bit 0 of each cell: times a cell value, one copy per cell
    U128 above_count = 0;     // the bit above each cell's counter
    U128 tops = 0;            // the top bit of each cell
    U128 rem_low = 0;         // the low r - 1 remainder bits of each cell
    U128 below_top = 0;       // all bits of each cell but the top one
    std::uint32_t count = 0;  // cells in the group
  };
  struct Scan {
    std::uint32_t load = 0;
    std::int32_t match = -1;  // the cell holding the remainder, if any
    std::int32_t empty = -1;  // the first empty cell, if any
  };
  struct GroupBits {
    U128 nonzero = 0;  // the bit above the counter of each cell in use
    U128 match = 0;    // the top bit of each cell in use holding the remainder
    U128 empty = 0;    // the bit above the counter of each empty cell
  };
  // A remainder as a cell holding it with counter 0, once per cell of a group.
  struct Pattern {
    U128 full = 0;
    U128 last = 0;
  };
  struct Probe {
    std::uint64_t remainder = 0;
    std::uint64_t bucket_bits[kMaxSubtables];  // bit offset of each candidate bucket; d set
  };

  DleftCountingFilter(DleftParams params, Hasher hasher);
  Probe probe(const Hash128& h, std::uint32_t d) const;
  bool contains_in(const Hash128& h, std::uint32_t d, std::uint32_t groups) const;
  std::uint64_t bucket_index(std::uint64_t q, std::uint64_t remainder, std::uint32_t i) const;
  Pattern pattern_of(std::uint64_t remainder) const;
  // The top bit of each cell that is in use (nonzero) and holds the pattern's remainder.
  static U128 match_bits(U128 x, const Lanes& l, U128 pattern);
  GroupBits group_bits(std::uint64_t bucket_bit, std::uint32_t group, const Pattern& pattern) const;
  Scan scan(std::uint64_t bucket_bit, std::uint64_t remainder) const;
  std::uint64_t read_bits(std::uint64_t bit, std::uint32_t width) const;
  U128 read_group(std::uint64_t bucket_bit, std::uint32_t group) const;
  // 128 bits from a bucket's first bit, which lies on a byte.
  U128 read_bucket(std::uint64_t bit) const;
  void write_bits(std::uint64_t bit, std::uint32_t width, std::uint64_t value);
  const Lanes& lanes_of(std::uint32_t group) const { return group + 1 == groups_ ? last_ : full_; }

  DleftParams params_;
  Hasher hasher_;
  std::uint32_t cell_bits_;    // r + counter bits
  std::uint32_t group_cells_;  // cells per full group
  std::uint32_t groups_;       // groups per bucket
  bool short_tail_;            // the last of several groups fits 64-bit arithmetic
  std::uint64_t bucket_bits_;  // cells_per_bucket * cell_bits_, rounded up to whole bytes
  std::uint64_t counter_mask_;
  std::uint32_t max_count_;
  Lanes full_;
  Lanes last_;
  FilterArray<std::uint64_t> words_;  // every cell, packed; two spare words at the end
  std::uint64_t size_ = 0;
  std::uint64_t occupied_ = 0;
  std::uint64_t saturated_ = 0;
  std::uint64_t refused_adds_ = 0;
  std::uint64_t refused_removes_ = 0;
};

}  // namespace sumcache::filters
