#include "daemon/store/index_shard.h"

namespace sumcache::daemon {

namespace {

// Backward-shift deletion (Knuth 6.4, algorithm R): no tombstones, so probe
// lengths do not grow with churn. home(ref) is the slot ref's hash names.
template <class Home>
void erase_slot(std::vector<EntryRef>& table, std::size_t slot, Home home) {
  const std::size_t mask = table.size() - 1;
  std::size_t hole = slot;
  for (std::size_t j = (hole + 1) & mask; table[j] != kNoEntry; j = (j + 1) & mask) {
    const std::size_t h = home(table[j]);
    // The entry at j may move to the hole unless its home lies cyclically in (hole, j].
    const bool home_between = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
    if (!home_between) {
      table[hole] = table[j];
      hole = j;
    }
  }
  table[hole] = kNoEntry;
}

// Doubles the table (16 slots at first); home reads table's new size.
template <class Home>
void grow(std::vector<EntryRef>& table, Home home) {
  std::vector<EntryRef> old = std::move(table);
  table.assign(old.empty() ? 16 : old.size() * 2, kNoEntry);
  const std::size_t mask = table.size() - 1;
  for (EntryRef ref : old) {
    if (ref == kNoEntry) continue;
    std::size_t slot = home(ref);
    while (table[slot] != kNoEntry) slot = (slot + 1) & mask;
    table[slot] = ref;
  }
}

}  // namespace

EntryRef IndexShard::first_variant(const filters::Hash128& key) const {
  if (slots_.empty()) return kNoEntry;
  return slots_[probe(key)];
}

EntryRef IndexShard::find(const filters::Hash128& key, std::uint64_t variant_hash) const {
  if (variant_slots_.empty()) return kNoEntry;
  return variant_slots_[probe_variant(key, variant_hash)];
}

EntryRef IndexShard::use(const filters::Hash128& key, std::uint64_t variant_hash) {
  if (slots_.empty()) return kNoEntry;
  const std::size_t slot = probe(key);
  const EntryRef first = slots_[slot];
  if (first == kNoEntry) return kNoEntry;
  // The key's probe has read its first variant already: a key with one
  // variant, nearly every key, needs no second probe sequence.
  IndexEntry& head = at(first);
  if (head.variant_hash == variant_hash) return first;
  const EntryRef ref = find(key, variant_hash);
  if (ref == kNoEntry) return kNoEntry;
  IndexEntry& e = at(ref);
  // Not the first, so prev_variant is its predecessor in the chain.
  at(e.prev_variant).next_variant = e.next_variant;
  (e.next_variant != kNoEntry ? at(e.next_variant) : head).prev_variant = e.prev_variant;
  e.next_variant = first;
  e.prev_variant = head.prev_variant;
  e.variants = head.variants;
  head.prev_variant = ref;
  slots_[slot] = ref;
  return ref;
}

EntryRef IndexShard::least_recent_variant(const filters::Hash128& key) const {
  const EntryRef first = first_variant(key);
  return first == kNoEntry ? kNoEntry : at(first).prev_variant;
}

std::size_t IndexShard::variant_count(const filters::Hash128& key) const {
  const EntryRef first = first_variant(key);
  return first == kNoEntry ? 0 : at(first).variants;
}

std::size_t IndexShard::probe(const filters::Hash128& key) const {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = home_slot(key);
  ++probe_steps_;
  while (slots_[slot] != kNoEntry && at(slots_[slot]).key_hash != key) {
    slot = (slot + 1) & mask;
    ++probe_steps_;
  }
  return slot;
}

std::size_t IndexShard::variant_home_slot(const filters::Hash128& key,
                                          std::uint64_t variant_hash) const {
  // h2 ^ variant_hash alone would give all of a key's variants one low bit
  // (variant hashes are odd); the multiply and fold mix every bit into the
  // low ones.
  std::uint64_t x = (key.h2 ^ variant_hash) * 0x9E3779B97F4A7C15;
  x ^= x >> 32;
  return x & (variant_slots_.size() - 1);
}

std::size_t IndexShard::probe_variant(const filters::Hash128& key,
                                      std::uint64_t variant_hash) const {
  const std::size_t mask = variant_slots_.size() - 1;
  std::size_t slot = variant_home_slot(key, variant_hash);
  ++probe_steps_;
  for (EntryRef ref = variant_slots_[slot]; ref != kNoEntry; ref = variant_slots_[slot]) {
    const IndexEntry& e = at(ref);
    if (e.variant_hash == variant_hash && e.key_hash == key) break;
    slot = (slot + 1) & mask;
    ++probe_steps_;
  }
  return slot;
}

IndexShard::Added IndexShard::add(const filters::Hash128& key, std::uint64_t variant_hash,
                                  std::string_view group) {
  if ((keys_ + 1) * 4 > slots_.size() * 3) {
    grow(slots_, [this](EntryRef r) { return home_slot(at(r).key_hash); });
  }
  if ((entries_ + 1) * 4 > variant_slots_.size() * 3) {
    grow(variant_slots_,
         [this](EntryRef r) { return variant_home_slot(at(r).key_hash, at(r).variant_hash); });
  }
  const EntryRef ref = allocate();
  IndexEntry& e = at(ref);
  e.key_hash = key;
  e.variant_hash = variant_hash;
  e.group = groups_.acquire(group);
  const std::size_t slot = probe(key);
  const EntryRef first = slots_[slot];
  const bool new_key = first == kNoEntry;
  if (new_key) {
    e.prev_variant = ref;  // its own last
    e.variants = 1;
  } else {
    IndexEntry& head = at(first);
    // The siblings are counted only when the key first gets a second group.
    const std::size_t siblings =
        groups_.mixed(key) == nullptr && head.group != e.group ? head.variants : 1;
    groups_.joined(key, e.group, head.group, siblings);
    e.prev_variant = head.prev_variant;
    e.variants = head.variants + 1;
    head.prev_variant = ref;
  }
  e.next_variant = first;  // the most recently used first
  slots_[slot] = ref;
  variant_slots_[probe_variant(key, variant_hash)] = ref;
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
  erase_slot(variant_slots_, probe_variant(e.key_hash, e.variant_hash),
             [this](EntryRef r) { return variant_home_slot(at(r).key_hash, at(r).variant_hash); });
  const std::size_t slot = probe(e.key_hash);
  const EntryRef first = slots_[slot];
  const bool last = ref == first && e.next_variant == kNoEntry;
  if (last) {
    erase_slot(slots_, slot, [this](EntryRef r) { return home_slot(at(r).key_hash); });
  } else if (ref == first) {
    // The next variant becomes the first and takes over the key's last and count.
    IndexEntry& next = at(e.next_variant);
    next.prev_variant = e.prev_variant;
    next.variants = e.variants - 1;
    slots_[slot] = e.next_variant;
  } else {
    IndexEntry& head = at(first);
    at(e.prev_variant).next_variant = e.next_variant;
    (e.next_variant != kNoEntry ? at(e.next_variant) : head).prev_variant = e.prev_variant;
    --head.variants;
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
         chunks_.capacity() * sizeof(chunks_[0]) +
         (slots_.capacity() + variant_slots_.capacity()) * sizeof(EntryRef);
}

}  // namespace sumcache::daemon
