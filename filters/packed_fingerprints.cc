#include "filters/packed_fingerprints.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "filters/sorted_run.h"

namespace sumcache::filters {
namespace {

constexpr unsigned kEntryBits = 16;
constexpr std::uint64_t kEntryMask = (std::uint64_t{1} << kEntryBits) - 1;
// A lookup scans this far from its interpolated guess before it bisects.
constexpr int kScanSteps = 8;

unsigned ceil_log2(unsigned peers) { return peers <= 1 ? 0 : std::bit_width(peers - 1); }

}  // namespace

// Writes keys in ascending order into a table's arrays.
class PackedFingerprints::Builder {
 public:
  explicit Builder(PackedFingerprints& t) : t_(t) {}
  void emit(std::uint64_t key) {
    open(key >> kEntryBits);
    t_.entries_[at_++] = static_cast<std::uint16_t>(key & kEntryMask);
  }
  void copy_bucket(std::uint64_t bucket, const std::uint16_t* from, std::uint64_t n) {
    open(bucket);
    std::memcpy(&t_.entries_[at_], from, n * sizeof(std::uint16_t));
    at_ += n;
  }
  void finish() { open(t_.buckets_); }

 private:
  void open(std::uint64_t bucket) {
    while (next_ <= bucket) t_.starts_[next_++] = at_;
  }
  PackedFingerprints& t_;
  std::uint64_t next_ = 0;
  std::uint64_t at_ = 0;
};

namespace {

// The slot's entries to drop, met in rank order.
struct Dropper {
  const PackedFingerprints::Change& change;
  std::size_t next = 0;
  std::uint64_t rank = 0;
  bool drops() {
    const std::uint64_t r = rank++;
    if (change.drop_all || change.leave) return true;
    if (next < change.removed_ranks.size() && change.removed_ranks[next] == r) {
      ++next;
      return true;
    }
    return false;
  }
  // Whether none of the slot's next `count` entries is dropped (then skips them).
  bool keeps_next(std::uint64_t count) {
    if (count == 0) return true;
    if (change.drop_all || change.leave) return false;
    if (next < change.removed_ranks.size() && change.removed_ranks[next] < rank + count) {
      return false;
    }
    rank += count;
    return true;
  }
};

}  // namespace

std::unique_ptr<PackedFingerprints> PackedFingerprints::rebuild(const PackedFingerprints* old,
                                                                std::uint64_t universe,
                                                                const Change& change) {
  const std::uint64_t bit = std::uint64_t{1} << change.slot;
  const std::uint64_t old_slots = old == nullptr ? 0 : old->slots_;
  const std::uint64_t slots = change.leave ? old_slots & ~bit : old_slots | bit;
  if (slots == 0) return nullptr;

  std::unique_ptr<PackedFingerprints> t(new PackedFingerprints());
  t->universe_ = universe;
  t->slots_ = slots;
  t->peer_bits_ = ceil_log2(static_cast<unsigned>(std::popcount(slots)));
  if (old != nullptr) t->sizes_ = old->sizes_;
  const std::uint64_t before = t->sizes_[change.slot];
  std::uint64_t dropped = change.leave || change.drop_all ? before : change.removed_ranks.size();
  t->sizes_[change.slot] = before - dropped + change.added.size();

  // Local ids: a remaining slot keeps its id, or, when the peer bits shrink,
  // takes its rank among the remaining ids (the order is kept, so the old
  // keys stay sorted); a joining slot takes the lowest free id.
  std::uint64_t used = 0;  // local id bits taken
  const bool shrinks = old != nullptr && t->peer_bits_ < old->peer_bits_;
  for (unsigned id = 0; old != nullptr && id < (1U << old->peer_bits_); ++id) {
    const std::uint64_t slot_bit = old->slot_bit_[id];
    if ((slot_bit & slots) == 0) continue;
    const auto slot = static_cast<unsigned>(std::countr_zero(slot_bit));
    const unsigned new_id = shrinks ? static_cast<unsigned>(std::popcount(used)) : id;
    t->id_of_[slot] = static_cast<std::uint8_t>(new_id);
    t->slot_bit_[new_id] = slot_bit;
    used |= std::uint64_t{1} << new_id;
  }
  if ((old_slots & bit) == 0) {
    const auto id = static_cast<unsigned>(std::countr_one(used));
    t->id_of_[change.slot] = static_cast<std::uint8_t>(id);
    t->slot_bit_[id] = bit;
  }

  const std::uint64_t old_total = old == nullptr ? 0 : old->entries_size_;
  t->entries_size_ = old_total - dropped + change.added.size();
  t->buckets_ = ((universe << t->peer_bits_) + kEntryMask) >> kEntryBits;
  t->starts_ = std::make_unique_for_overwrite<std::uint64_t[]>(t->buckets_ + 1);
  t->entries_ = std::make_unique_for_overwrite<std::uint16_t[]>(t->entries_size_);

  Builder out(*t);
  Dropper dropper{change};
  const unsigned pb = t->peer_bits_;
  const std::uint64_t own_id = t->id_of_[change.slot];
  const auto added_key = [&](std::size_t i) { return change.added[i] << pb | own_id; };
  std::size_t a = 0;
  if (old != nullptr && old->peer_bits_ == pb) {
    // Same layout: a bucket without changes is copied whole.
    const std::uint64_t id_mask = (std::uint64_t{1} << pb) - 1;
    const std::uint64_t old_id = (old_slots & bit) != 0 ? old->id_of_[change.slot] : kMaxPeers;
    for (std::uint64_t b = 0; b < old->buckets_; ++b) {
      const std::uint16_t* run = &old->entries_[old->starts_[b]];
      const std::uint64_t n = old->starts_[b + 1] - old->starts_[b];
      std::uint64_t own = 0;
      for (std::uint64_t i = 0; i < n; ++i) own += (run[i] & id_mask) == old_id ? 1 : 0;
      const bool adds_here = a < change.added.size() && added_key(a) >> kEntryBits == b;
      if (!adds_here && dropper.keeps_next(own)) {
        out.copy_bucket(b, run, n);
        continue;
      }
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t key = b << kEntryBits | run[i];
        if ((key & id_mask) == old_id && dropper.drops()) continue;
        for (; a < change.added.size() && added_key(a) < key; ++a) out.emit(added_key(a));
        out.emit(key);
      }
      for (; a < change.added.size() && added_key(a) >> kEntryBits == b; ++a) out.emit(added_key(a));
    }
  } else if (old != nullptr) {
    // The peer bits change: every key is re-encoded, in the same order.
    const std::uint64_t old_mask = (std::uint64_t{1} << old->peer_bits_) - 1;
    for (std::uint64_t b = 0; b < old->buckets_; ++b) {
      for (std::uint64_t i = old->starts_[b]; i < old->starts_[b + 1]; ++i) {
        const std::uint64_t old_key = b << kEntryBits | old->entries_[i];
        const std::uint64_t slot_bit = old->slot_bit_[old_key & old_mask];
        if (slot_bit == bit && dropper.drops()) continue;
        const auto slot = static_cast<unsigned>(std::countr_zero(slot_bit));
        const std::uint64_t key = (old_key >> old->peer_bits_) << pb | t->id_of_[slot];
        for (; a < change.added.size() && added_key(a) < key; ++a) out.emit(added_key(a));
        out.emit(key);
      }
    }
  }
  for (; a < change.added.size(); ++a) out.emit(added_key(a));
  out.finish();
  return t;
}

std::uint64_t PackedFingerprints::probe(std::uint64_t f) const {
  const std::uint64_t key = f << peer_bits_;
  const std::uint64_t b = key >> kEntryBits;
  const auto low = static_cast<std::uint32_t>(key & kEntryMask);
  const std::uint32_t past = low + (std::uint32_t{1} << peer_bits_);
  const std::uint16_t* e = entries_.get();
  const std::uint64_t lo = starts_[b];
  const std::uint64_t hi = starts_[b + 1];
  if (lo == hi) return 0;
  // Keys are near-uniform within a bucket: start where low would fall, then
  // walk (a few steps) or bisect (a crowded bucket) to its first entry.
  std::uint64_t g = lo + (((hi - lo) * low) >> kEntryBits);
  if (e[g] < low) {
    ++g;
    for (int s = 0; g < hi && e[g] < low; ++g) {
      if (++s == kScanSteps) {
        g = static_cast<std::uint64_t>(std::lower_bound(e + g, e + hi, low) - e);
        break;
      }
    }
  } else {
    for (int s = 0; g > lo && e[g - 1] >= low; --g) {
      if (++s == kScanSteps) {
        g = static_cast<std::uint64_t>(std::lower_bound(e + lo, e + g, low) - e);
        break;
      }
    }
  }
  const std::uint64_t id_mask = (std::uint64_t{1} << peer_bits_) - 1;
  std::uint64_t claimed = 0;
  for (; g < hi && e[g] < past; ++g) claimed |= slot_bit_[e[g] & id_mask];
  return claimed;
}

std::size_t PackedFingerprints::memory_bytes() const {
  return heap_block_bytes(sizeof(*this)) + heap_block_bytes((buckets_ + 1) * sizeof(std::uint64_t)) +
         heap_block_bytes(entries_size_ * sizeof(std::uint16_t));
}

}  // namespace sumcache::filters
