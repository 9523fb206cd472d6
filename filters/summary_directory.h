#pragma once
// SummaryDirectory: the latest summary (BloomFilter bit array) of up to 64
// peers, stored bit-sliced: for each distinct (m, k), m 64-bit words, word i
// holding bit i of every peer slot with those params. "Which peers claim this
// key?" is then k word loads ANDed together, whatever the number of peers.
// Layout, memory trade-off and concurrency: docs/filters.md.
//
// Threads: claims() from any number of threads, lock-free and allocation-free;
// set/apply/clear serialized by an internal mutex (one updater at a time is
// expected) and never making a reader wait.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <system_error>
#include <vector>

#include "filters/bit_change.h"
#include "filters/bloom_filter.h"
#include "filters/grace_period.h"

namespace sumcache::filters {

// 2^28 bits per summary: 2 GiB of directory words, room for 1.6 * 10^7 entries
// at 16 bits per entry.
inline constexpr std::uint64_t kMaxDirectoryBits = std::uint64_t{1} << 28;

class SummaryDirectory {
 public:
  static constexpr unsigned kMaxPeers = 64;

  // Every summary must use `hasher`; a summary with m above max_bits is refused.
  explicit SummaryDirectory(Hasher hasher = {}, std::uint64_t max_bits = kMaxDirectoryBits);
  ~SummaryDirectory();
  SummaryDirectory(const SummaryDirectory&) = delete;
  SummaryDirectory& operator=(const SummaryDirectory&) = delete;

  // Replaces slot's summary. Errors: invalid_slot, parameter_mismatch (hasher), too_large.
  std::error_code set(unsigned slot, const BloomFilter& bits);
  // Applies a delta to slot's summary, all or nothing.
  // Errors: invalid_slot, no_summary, position_out_of_range.
  std::error_code apply(unsigned slot, std::span<const BitChange> changes);
  // The slot claims nothing from now on; no effect on an empty or invalid slot.
  void clear(unsigned slot);

  // Bit s set iff slot s is in `eligible` and its summary has all k bits of the key.
  std::uint64_t claims(const Hash128& h, std::uint64_t eligible = ~std::uint64_t{0}) const;
  std::uint64_t claims(std::string_view key, std::uint64_t eligible = ~std::uint64_t{0}) const {
    return claims(hasher_(key), eligible);
  }

  bool has(unsigned slot) const;
  BloomParams params_of(unsigned slot) const;  // {0, 0} for an empty slot
  std::size_t memory_bytes() const;            // the bit-sliced words
  const Hasher& hasher() const { return hasher_; }

 private:
  struct Slices;  // one bit-sliced array, owned by the writer side
  // What readers see of one array. Views are immutable once published.
  struct Entry {
    std::uint64_t slots = 0;
    BloomParams params;
    const std::atomic<std::uint64_t>* words = nullptr;
  };
  struct View {
    unsigned count = 0;
    std::array<Entry, kMaxPeers> entries;  // at most one array per slot
  };

  void write_column(Slices& target, unsigned slot, const BloomFilter& bits);
  void publish();
  Slices* find_or_add(const BloomParams& params);

  Hasher hasher_;
  std::uint64_t max_bits_;

  // Reclamation: readers load published_ inside a GracePeriod guard. A writer
  // fills the view not published, publishes it, waits out the grace period,
  // and only then frees arrays left without slots; after that wait no reader
  // holds the old view, so it is the next scratch. Chosen over a shared_ptr
  // swapped atomically because there the last reader to drop an old view
  // would free a multi-megabyte array on a worker thread, and every lookup
  // would write the same reference count.
  mutable GracePeriod grace_;
  std::array<View, 2> views_;
  std::atomic<const View*> published_;

  mutable std::mutex writer_;  // guards the members below
  std::vector<std::unique_ptr<Slices>> arrays_;
  std::array<Slices*, kMaxPeers> slot_arrays_{};
};

}  // namespace sumcache::filters
