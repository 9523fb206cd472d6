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

class PackedFingerprints {
 public:
  static constexpr unsigned kMaxPeers = 64;

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

  // Global slot bits of the peers holding f (< universe()).
  std::uint64_t probe(std::uint64_t f) const;

  std::uint64_t universe() const { return universe_; }
  std::uint64_t slots() const { return slots_; }
  std::uint64_t size_of(unsigned slot) const { return sizes_[slot]; }
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
  std::unique_ptr<std::uint64_t[]> starts_;  // buckets_ + 1
  std::unique_ptr<std::uint16_t[]> entries_;
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
