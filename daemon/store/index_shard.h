#pragma once
// One shard of the store's index, without locking: the Store holds the
// shard's mutex around every call. Entries live in fixed chunks addressed by
// 32-bit refs; an open-addressing table maps a key hash to the key's first
// variant, and a key's variants chain from it most recently used first; a
// second table maps (key hash, variant hash) to the entry, so no lookup walks
// the chain; two intrusive LRU lists order the memory and the disk tier.
// Layout and measured size: docs/store.md, "Index".

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

#include "daemon/store/stored_object.h"
#include "daemon/store/variant_groups.h"
#include "filters/hashing.h"

namespace sumcache::daemon {

using EntryRef = std::uint32_t;
inline constexpr EntryRef kNoEntry = std::numeric_limits<EntryRef>::max();

enum class Tier : std::uint8_t { memory = 0, disk = 1 };

struct IndexEntry {
  filters::Hash128 key_hash;
  // Set while memory-resident and while a write of it is queued (the writer
  // holds it then anyway); null for a disk-only object.
  ObjectPtr object;
  std::uint64_t variant_hash = 0;
  std::uint64_t disk_bytes = 0;      // file size while in the disk tier
  EntryRef next_variant = kNoEntry;  // the key's next variant; free-list link when free
  // The key's previous variant; in its first variant, the key's last (the
  // chain is circular backwards), so the least recently used is one step away.
  EntryRef prev_variant = kNoEntry;
  std::uint32_t variants = 0;  // how many the key has; kept in its first variant only
  std::uint32_t version = 0;   // bumped whenever what the entry stores changes
  VariantGroups::GroupId group =
      VariantGroups::kNoFields;                      // the selecting fields it was keyed under
  std::array<EntryRef, 2> prev{kNoEntry, kNoEntry};  // LRU links, indexed by Tier
  std::array<EntryRef, 2> next{kNoEntry, kNoEntry};
  std::array<bool, 2> linked{false, false};  // changed only by IndexShard::link/unlink
  bool write_pending = false;                // a write of `object` is queued
  bool filling = false;  // the queued write places a fill: the file at the path is another's
  bool in(Tier tier) const { return linked[static_cast<int>(tier)]; }
};

class IndexShard {
 public:
  struct Added {
    EntryRef ref;
    bool new_key;  // the key's first variant in the index
  };

  IndexEntry& at(EntryRef ref) { return chunks_[ref >> kChunkBits][ref & kChunkMask]; }
  const IndexEntry& at(EntryRef ref) const { return chunks_[ref >> kChunkBits][ref & kChunkMask]; }
  EntryRef first_variant(const filters::Hash128& key) const;
  EntryRef find(const filters::Hash128& key, std::uint64_t variant_hash) const;
  // As find(), and the variant becomes the key's most recently used.
  EntryRef use(const filters::Hash128& key, std::uint64_t variant_hash);
  // The key's least recently used variant, and how many it has.
  EntryRef least_recent_variant(const filters::Hash128& key) const;
  std::size_t variant_count(const filters::Hash128& key) const;
  // Requires find(key, variant_hash) == kNoEntry. The new variant is the
  // key's most recently used; `group` names its selecting fields
  // (VariantGroups).
  Added add(const filters::Hash128& key, std::uint64_t variant_hash, std::string_view group = {});
  // An entry known only from its file: in the disk tier, no object in memory.
  Added add_disk_entry(const filters::Hash128& key, std::uint64_t variant_hash,
                       std::uint64_t file_bytes, std::string_view group = {});
  // Calls f(fields) once for each group the key's variants are in: one
  // group unless its variants were keyed under several field lists.
  template <class F>
  void for_each_group(const filters::Hash128& key, F&& f) const {
    const EntryRef first = first_variant(key);
    if (first == kNoEntry) return;
    const auto* mixed = groups_.mixed(key);
    if (mixed == nullptr) {
      f(groups_.fields(at(first).group));
      return;
    }
    for (const auto& group : *mixed) f(groups_.fields(group.first));
  }
  const VariantGroups& groups() const { return groups_; }
  // Unlinks the entry from both tiers and frees it; true when it was the
  // key's last variant.
  bool erase(EntryRef ref);

  void link(Tier tier, EntryRef ref);  // as the most recently used
  void unlink(Tier tier, EntryRef ref);
  void touch(Tier tier, EntryRef ref);  // to the front, if linked
  EntryRef least_recent(Tier tier) const { return tail_[static_cast<int>(tier)]; }

  std::size_t entries() const { return entries_; }
  std::size_t keys() const { return keys_; }
  // Bytes of the index's own structures (chunks and tables), objects excluded.
  std::size_t index_bytes() const;
  // Table slots inspected so far (by lookups, adds and erases): lets tests
  // hold them to a few per lookup, whatever a key's variant count.
  std::size_t probe_steps() const { return probe_steps_; }
  template <class F>
  void for_each_key(F&& f) const {
    for (EntryRef ref : slots_) {
      if (ref != kNoEntry) f(at(ref).key_hash);
    }
  }

 private:
  static constexpr unsigned kChunkBits = 10;  // 1024 entries (88 KiB) per chunk
  static constexpr EntryRef kChunkMask = (EntryRef{1} << kChunkBits) - 1;

  std::size_t home_slot(const filters::Hash128& key) const { return key.h2 & (slots_.size() - 1); }
  // The slot holding key's chain, or the empty slot where it would go.
  std::size_t probe(const filters::Hash128& key) const;
  std::size_t variant_home_slot(const filters::Hash128& key, std::uint64_t variant_hash) const;
  // The slot holding the entry of (key, variant_hash), or the empty slot
  // where it would go.
  std::size_t probe_variant(const filters::Hash128& key, std::uint64_t variant_hash) const;
  EntryRef allocate();

  std::vector<std::unique_ptr<IndexEntry[]>> chunks_;
  std::vector<EntryRef> slots_;  // power-of-two size, linear probing, load <= 3/4
  // Every entry by (key hash, variant hash): probed as slots_, its load (of
  // entries, not keys) likewise at most 3/4.
  std::vector<EntryRef> variant_slots_;
  mutable std::size_t probe_steps_ = 0;
  EntryRef free_ = kNoEntry;
  EntryRef unused_ = 0;  // refs at or above this were never handed out
  std::size_t entries_ = 0;
  std::size_t keys_ = 0;
  std::array<EntryRef, 2> head_{kNoEntry, kNoEntry};
  std::array<EntryRef, 2> tail_{kNoEntry, kNoEntry};
  VariantGroups groups_;
};

}  // namespace sumcache::daemon
