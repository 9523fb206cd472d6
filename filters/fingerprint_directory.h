#pragma once
// FingerprintDirectory: the fingerprint summaries (fingerprint_table.h) of up
// to 64 peers, exact, in about 2 bytes per fingerprint, answering "which peers
// claim this key?" in one bucket probe whatever the number of peers. Peers
// whose summaries share a universe share one table, so a key's fingerprint
// is computed once per universe held. Layout, memory and concurrency:
// docs/filters_fingerprint.md. Beside SummaryDirectory (Bloom-filter
// summaries): a node's peers may send either kind.
//
// Threads: claims() from any number of threads, lock-free and allocation-free;
// set/apply/clear serialized by an internal mutex and never making a reader wait.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <system_error>
#include <vector>

#include "filters/fingerprint.h"
#include "filters/hashing.h"

namespace sumcache::filters {

class FingerprintDirectory {
 public:
  static constexpr unsigned kMaxPeers = 64;

  // Every summary is of keys hashed by `hasher`; a slot holds what
  // FingerprintCap{max_entries} holds (the cap a hostile peer cannot pass).
  explicit FingerprintDirectory(Hasher hasher = {},
                                std::uint64_t max_entries = std::uint64_t{1} << 26);
  ~FingerprintDirectory();
  FingerprintDirectory(const FingerprintDirectory&) = delete;
  FingerprintDirectory& operator=(const FingerprintDirectory&) = delete;

  // Replaces slot's summary with `sorted` (ascending, repeats allowed, each
  // below universe). All or nothing. Errors: invalid_slot, invalid_bits
  // (universe 0 or above kMaxUniverse), not_ascending, position_out_of_range,
  // too_large (over FingerprintCap: more than max_entries, or a universe above
  // max_entries * 2^16; or a shared table passing 2^32 - 1 entries:
  // docs/filters_fingerprint.md).
  std::error_code set(unsigned slot, std::uint64_t universe, std::span<const std::uint64_t> sorted);
  // Removes the elements at `removed_ranks` (ascending, distinct, ranks in the
  // set held before this call), then adds `added` (ascending, repeats allowed,
  // below the slot's universe). All or nothing. Errors: invalid_slot,
  // no_summary, rank_out_of_range, not_ascending, position_out_of_range, too_large.
  std::error_code apply(unsigned slot, std::span<const std::uint64_t> removed_ranks,
                        std::span<const std::uint64_t> added);
  // The slot claims nothing from now on; no effect on an empty or invalid slot.
  void clear(unsigned slot);

  // Bit s set iff slot s is in `eligible` and holds the key's fingerprint.
  std::uint64_t claims(const Hash128& h, std::uint64_t eligible = ~std::uint64_t{0}) const;
  std::uint64_t claims(std::string_view key, std::uint64_t eligible = ~std::uint64_t{0}) const {
    return claims(hasher_(key), eligible);
  }

  bool has(unsigned slot) const;
  std::uint64_t universe_of(unsigned slot) const;             // 0 for an empty slot
  std::uint64_t size_of(unsigned slot) const;                 // fingerprints held
  std::vector<std::uint64_t> sorted_of(unsigned slot) const;  // ascending, repeats kept
  std::size_t memory_bytes() const;                           // every table, all peers
  const Hasher& hasher() const { return hasher_; }

 private:
  struct Tables;  // the implementation's
  Hasher hasher_;
  FingerprintCap cap_;
  std::unique_ptr<Tables> tables_;
};

}  // namespace sumcache::filters
