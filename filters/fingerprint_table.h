#pragma once
// FingerprintTable: the sender's fingerprint summary (docs/filters_fingerprint.md).
// A multiset of fingerprints in [0, universe), kept in order so that a full
// summary is a walk and a delta's removals can be named by their rank in the
// set the receiver holds (about log2(n/c) bits each instead of log2(U/c)).
// One fingerprint per cached key: the store adds a key's fingerprint with
// its first variant and removes it with its last, so counts stay exact under
// eviction; two keys with one fingerprint are held twice.
//
// Not thread-safe: the owner (the store's key filter) serializes access.

#include <cstddef>
#include <cstdint>
#include <span>
#include <memory>
#include <system_error>
#include <vector>

#include "filters/fingerprint.h"
#include "filters/result.h"

namespace sumcache::filters {

// What a receiver holding the set at the last mark needs to reach the set now.
struct FingerprintDelta {
  std::vector<std::uint64_t> removed_ranks;  // ascending, distinct: ranks in the marked set
  std::vector<std::uint64_t> added;          // ascending, repeats allowed
  friend bool operator==(const FingerprintDelta&, const FingerprintDelta&) = default;
};

// The delta from `base` to `now` (both ascending, repeats kept) as take_delta()
// states it: each element of base that now lacks, by its rank in base, and each
// element of now that base lacks, counted with multiplicity. For tests and
// benchmarks that hold both sets.
FingerprintDelta fingerprint_difference(std::span<const std::uint64_t> base,
                                        std::span<const std::uint64_t> now);

class FingerprintTable {
 public:
  // Errors: invalid_bits (universe 0 or above kMaxUniverse).
  static Result<FingerprintTable> create(std::uint64_t universe);

  FingerprintTable(const FingerprintTable& other);
  FingerprintTable& operator=(const FingerprintTable& other);
  FingerprintTable(FingerprintTable&&) noexcept;
  FingerprintTable& operator=(FingerprintTable&&) noexcept;
  ~FingerprintTable();

  // Requires f < universe().
  void add(std::uint64_t f);
  // remove_underflow, the table unchanged, when f is not held.
  std::error_code remove(std::uint64_t f);

  bool contains(std::uint64_t f) const { return count(f) > 0; }
  std::uint64_t count(std::uint64_t f) const;
  std::uint64_t rank(std::uint64_t f) const;  // elements below f
  std::uint64_t size() const;
  std::uint64_t universe() const;
  std::vector<std::uint64_t> sorted() const;  // every element ascending, repeats kept
  std::size_t memory_bytes() const;           // all the table holds, change log included

  // Deltas. mark() records the set now as the receivers' state; from then on
  // at most max_logged changes are remembered.
  void mark(std::size_t max_logged = std::size_t{1} << 20);
  // The changes since the last mark (an add and a remove of one fingerprint
  // cancel), then marks. change_log_overflow, nothing marked, when there was
  // no mark or more than max_logged changes: send a full summary and mark.
  Result<FingerprintDelta> take_delta();
  std::uint64_t adds_since_mark() const;  // Summary Cache's update threshold counts these

 private:
  // Layout (docs/filters_fingerprint.md): a fingerprint's bits above the low
  // 16 pick a bucket, whose run holds the low 16 bits sorted, in a block of
  // its own; runs are grouped in pages of kPageRuns, allocated when first
  // used, each with prefix counts (a Fenwick tree) for rank().
  struct Run;
  struct Page;
  explicit FingerprintTable(std::uint64_t universe);
  void log_change(std::uint64_t entry);

  std::uint64_t universe_ = 0;
  std::uint64_t size_ = 0;
  std::vector<std::unique_ptr<Page>> pages_;
  std::vector<std::uint64_t> log_;  // fingerprints, the top bit set for a removal
  std::size_t max_logged_ = 0;
  bool marked_ = false;
  bool overflowed_ = false;
  std::uint64_t adds_since_mark_ = 0;
};

}  // namespace sumcache::filters
