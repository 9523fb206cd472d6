#include "daemon/store/index_shard.h"

namespace sumcache::daemon {

EntryRef IndexShard::first_variant(const filters::Hash128& key) const {
  if (slots_.empty()) return kNoEntry;
  return slots_[probe(key)];
}

EntryRef IndexShard::find(const filters::Hash128& key, std::uint64_t variant_hash) const {
  EntryRef ref = first_variant(key);
  while (ref != kNoEntry && at(ref).variant_hash != variant_hash) ref = at(ref).next_variant;
  return ref;
}

EntryRef IndexShard::use(const filters::Hash128& key, std::uint64_t variant_hash) {
  if (slots_.empty()) return kNoEntry;
  const std::size_t slot = probe(key);
  EntryRef prev = kNoEntry;
  EntryRef ref = slots_[slot];
  while (ref != kNoEntry && at(ref).variant_hash != variant_hash) {
    prev = ref;
    ref = at(ref).next_variant;
  }
  if (ref != kNoEntry && prev != kNoEntry) {
    at(prev).next_variant = at(ref).next_variant;
    at(ref).next_variant = slots_[slot];
    slots_[slot] = ref;
  }
  return ref;
}

EntryRef IndexShard::least_recent_variant(const filters::Hash128& key) const {
  EntryRef ref = first_variant(key);
  while (ref != kNoEntry && at(ref).next_variant != kNoEntry) ref = at(ref).next_variant;
  return ref;
}

std::size_t IndexShard::variant_count(const filters::Hash128& key) const {
  std::size_t n = 0;
  for (EntryRef ref = first_variant(key); ref != kNoEntry; ref = at(ref).next_variant) ++n;
  return n;
}

std::size_t IndexShard::probe(const filters::Hash128& key) const {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = home_slot(key);
  while (slots_[slot] != kNoEntry && at(slots_[slot]).key_hash != key) slot = (slot + 1) & mask;
  return slot;
}

IndexShard::Added IndexShard::add(const filters::Hash128& key, std::uint64_t variant_hash,
                                  std::string_view group) {
  if ((keys_ + 1) * 4 > slots_.size() * 3) grow_table();
  const EntryRef ref = allocate();
  IndexEntry& e = at(ref);
  e.key_hash = key;
  e.variant_hash = variant_hash;
  e.group = groups_.acquire(group);
  const std::size_t slot = probe(key);
  const bool new_key = slots_[slot] == kNoEntry;
  if (!new_key) {
    // The siblings are counted only when the key first gets a second group.
    const EntryRef first = slots_[slot];
    const std::size_t siblings =
        groups_.mixed(key) == nullptr && at(first).group != e.group ? variant_count(key) : 1;
    groups_.joined(key, e.group, at(first).group, siblings);
  }
  e.next_variant = slots_[slot];  // the most recently used first
  slots_[slot] = ref;
  ++entries_;
  if (new_key) ++keys_;
  return {ref, new_key};
}

IndexShard::Added IndexShard::add_disk_entry(const filters::Hash128& key,
                                             std::uint64_t variant_hash, std::uint64_t file_bytes,
                                             std::string_view group) {
  const Added added = add(key, variant_hash, group);
  at(added.ref).disk_bytes = file_bytes;
  link(Tier::disk, added.ref);
  return added;
}

bool IndexShard::erase(EntryRef ref) {
  IndexEntry& e = at(ref);
  if (e.in(Tier::memory)) unlink(Tier::memory, ref);
  if (e.in(Tier::disk)) unlink(Tier::disk, ref);
  const std::size_t slot = probe(e.key_hash);
  bool last = false;
  if (slots_[slot] == ref) {
    slots_[slot] = e.next_variant;
    last = e.next_variant == kNoEntry;
    if (last) erase_slot(slot);
  } else {
    EntryRef prev = slots_[slot];
    while (at(prev).next_variant != ref) prev = at(prev).next_variant;
    at(prev).next_variant = e.next_variant;
  }
  groups_.left(e.key_hash, e.group);
  groups_.release(e.group);
  e = IndexEntry{};
  e.next_variant = free_;
  free_ = ref;
  --entries_;
  if (last) --keys_;
  return last;
}

// Backward-shift deletion (Knuth 6.4, algorithm R): no tombstones, so probe
// lengths do not grow with churn.
void IndexShard::erase_slot(std::size_t slot) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t hole = slot;
  for (std::size_t j = (hole + 1) & mask; slots_[j] != kNoEntry; j = (j + 1) & mask) {
    const std::size_t home = home_slot(at(slots_[j]).key_hash);
    // The entry at j may move to the hole unless its home lies cyclically in (hole, j].
    const bool home_between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!home_between) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = kNoEntry;
}

void IndexShard::grow_table() {
  std::vector<EntryRef> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : old.size() * 2, kNoEntry);
  for (EntryRef ref : old) {
    if (ref != kNoEntry) slots_[probe(at(ref).key_hash)] = ref;
  }
}

EntryRef IndexShard::allocate() {
  if (free_ != kNoEntry) {
    const EntryRef ref = free_;
    free_ = at(ref).next_variant;
    at(ref).next_variant = kNoEntry;
    return ref;
  }
  if ((unused_ >> kChunkBits) == chunks_.size()) {
    chunks_.push_back(std::make_unique<IndexEntry[]>(std::size_t{1} << kChunkBits));
  }
  return unused_++;
}

void IndexShard::link(Tier tier, EntryRef ref) {
  const int t = static_cast<int>(tier);
  IndexEntry& e = at(ref);
  e.linked[t] = true;
  e.prev[t] = kNoEntry;
  e.next[t] = head_[t];
  if (head_[t] != kNoEntry) at(head_[t]).prev[t] = ref;
  head_[t] = ref;
  if (tail_[t] == kNoEntry) tail_[t] = ref;
}

void IndexShard::unlink(Tier tier, EntryRef ref) {
  const int t = static_cast<int>(tier);
  IndexEntry& e = at(ref);
  (e.prev[t] != kNoEntry ? at(e.prev[t]).next[t] : head_[t]) = e.next[t];
  (e.next[t] != kNoEntry ? at(e.next[t]).prev[t] : tail_[t]) = e.prev[t];
  e.prev[t] = e.next[t] = kNoEntry;
  e.linked[t] = false;
}

void IndexShard::touch(Tier tier, EntryRef ref) {
  if (!at(ref).in(tier) || head_[static_cast<int>(tier)] == ref) return;
  unlink(tier, ref);
  link(tier, ref);
}

std::size_t IndexShard::index_bytes() const {
  return chunks_.size() * (sizeof(IndexEntry) << kChunkBits) +
         chunks_.capacity() * sizeof(chunks_[0]) + slots_.capacity() * sizeof(EntryRef);
}

}  // namespace sumcache::daemon
