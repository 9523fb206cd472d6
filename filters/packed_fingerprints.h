#pragma once
// PackedFingerprints: FingerprintDirectory's table of the peers sharing one
// universe (docs/filters_fingerprint.md). Immutable once built: a writer
// builds the next table beside it and the directory publishes it, so readers
// need no lock.
//
// A peer holding fingerprint f contributes the key K = f << peer_bits | id,
// id its local id in this table. The keys are kept sorted, bucketed by
// K >> 16, each bucket a run of the low 16 bits of its keys (the low
// 16 - peer_bits bits of f and the id) delimited by `starts`. peer_bits =
// ceil(log2(peers)), so a bucket holds about 2^16 n / U entries at 1 peer or
// at 64: a lookup is one bucket's search whatever the number of peers.

#include <array>
#include <cstdint>
#include <memory>
#include <span>

namespace sumcache::filters {

// Frees an array of PackedFingerprints (its size picks how it was allocated).
struct PackedArrayFree {
  std::size_t bytes = 0;
  void operator()(void* p) const noexcept;
};

class PackedFingerprints {
 public:
  static constexpr unsigned kMaxPeers = 64;
  // Entries of one table (all its peers): offsets are 32-bit.
  static constexpr std::uint64_t kMaxEntries = UINT32_MAX;

  // How one slot's entries change in a rebuild. A slot not yet in the table
  // joins; drop_all removes all its entries, otherwise those at
  // removed_ranks (ascending ranks in its set); `added` (ascending) joins.
  struct Change {
    unsigned slot = 0;
    bool leave = false;  // the slot leaves the table (nothing added)
    bool drop_all = false;
    std::span<const std::uint64_t> removed_ranks;
    std::span<const std::uint64_t> added;

    static Change leaving(unsigned slot) { return {slot, true, false, {}, {}}; }
    static Change replacing(unsigned slot, std::span<const std::uint64_t> sorted) {
      return {slot, false, true, {}, sorted};
    }
    static Change patching(unsigned slot, std::span<const std::uint64_t> removed_ranks,
                           std::span<const std::uint64_t> added) {
      return {slot, false, false, removed_ranks, added};
    }
  };

  // `old` (null for a new table) with `change` applied; null when no slot
  // is left. Ranks and fingerprints are the caller's to validate.
  static std::unique_ptr<PackedFingerprints> rebuild(const PackedFingerprints* old,
                                                     std::uint64_t universe, const Change& change);

  // Entries a lookup compares around its interpolated guess before it
  // falls back to a binary search of the bucket.
  static constexpr std::uint32_t kWindow = 32;

  // Global slot bits of the peers holding f (< universe()).
  std::uint64_t probe(std::uint64_t f) const;

  std::uint64_t universe() const { return universe_; }
  std::uint64_t slots() const { return slots_; }
  std::uint64_t size_of(unsigned slot) const { return sizes_[slot]; }
  std::uint64_t size() const { return entries_size_; }
  unsigned peer_bits() const { return peer_bits_; }
  // Slot's fingerprints ascending, repeats kept, appended to `out` (a scan).
  template <class Out>
  void for_each_of(unsigned slot, Out out) const;
  std::size_t memory_bytes() const;

 private:
  PackedFingerprints() = default;
  class Builder;

  std::uint64_t universe_ = 0;
  unsigned peer_bits_ = 0;
  std::uint64_t slots_ = 0;                          // global slot bits held
  std::array<std::uint64_t, kMaxPeers> slot_bit_{};  // local id -> global slot bit
  std::array<std::uint8_t, kMaxPeers> id_of_{};      // global slot -> local id
  std::array<std::uint64_t, kMaxPeers> sizes_{};     // per global slot
  std::uint64_t buckets_ = 0;
  std::uint64_t entries_size_ = 0;
  // Large arrays on huge pages (huge_page_allocator.h): a lookup's two
  // random loads would otherwise each miss the TLB too.
  template <class T>
  using Array = std::unique_ptr<T[], PackedArrayFree>;
  template <class T>
  static Array<T> allocate(std::size_t count);
  static std::size_t footprint(std::size_t bytes);
  std::uint64_t search(const std::uint16_t* first, const std::uint16_t* last, std::uint32_t low,
                       std::uint32_t past) const;

  Array<std::uint32_t> starts_;  // buckets_ + 1: half the cache footprint of 64-bit offsets
  Array<std::uint16_t> entries_;  // entries_size_ + kWindow: the window's padding
};

template <class Out>
void PackedFingerprints::for_each_of(unsigned slot, Out out) const {
  if ((slots_ >> slot & 1U) == 0) return;
  const std::uint64_t id = id_of_[slot];
  const std::uint64_t id_mask = (std::uint64_t{1} << peer_bits_) - 1;
  for (std::uint64_t b = 0; b < buckets_; ++b) {
    for (std::uint64_t i = starts_[b]; i < starts_[b + 1]; ++i) {
      const std::uint64_t key = b << 16 | entries_[i];
      if ((key & id_mask) == id) out(key >> peer_bits_);
    }
  }
}

}  // namespace sumcache::filters
