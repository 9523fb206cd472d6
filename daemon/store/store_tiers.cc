// Placement and eviction: which tiers hold an entry, their byte budgets, and
// the counting filter kept exact as entries come and go (docs/store.md,
// "Eviction" and "The filter invariant"). Functions taking a Shard& run with
// its mutex held.

#include "daemon/store/object_file.h"
#include "daemon/store/store.h"
#include "daemon/store/store_error.h"
#include "daemon/store/store_shard.h"

namespace sumcache::daemon {

// Takes the entry out of both tiers and forgets its object and queued write.
// True when a file may exist at its path (in the disk tier, or written by a
// queued job) that the caller must replace or remove.
EntryRef Store::find_or_add(Shard& s, const filters::Hash128& hash, std::uint64_t variant,
                            std::string_view key, std::string_view group) {
  if (const EntryRef ref = s.index.use(hash, variant); ref != kNoEntry) return ref;
  const IndexShard::Added added = s.index.add(hash, variant, group);
  if (added.new_key) {
    filter_.add(hash);
    s.names.add(hash, key);
  } else {
    cap_variants(s, hash, key);
  }
  return added.ref;
}

// The new variant is the key's most recently used, so never the one that
// goes; nor is the key's last, so the filter and the key names keep it.
// Before the disk writer runs (a restart), the file is removed here.
void Store::cap_variants(Shard& s, const filters::Hash128& hash, std::string_view key) {
  std::size_t over = s.index.variant_count(hash);
  if (over <= options_.max_variants_per_key) return;
  over -= options_.max_variants_per_key;
  for (; over > 0; --over) {
    const EntryRef victim = s.index.least_recent_variant(hash);
    if (options_.disk_enabled && !writer_) {
      static_cast<void>(remove_file(path_of(hash, s.index.at(victim).variant_hash)));
    }
    erase_entry(s, victim);
    bump(counters_.variants_evicted);
  }
  const auto held = variant_log_.admit(LogLimiter::Clock::now());
  if (!held) return;
  std::string line = "store: " + std::string(key.substr(0, 256)) + ": more than " +
                     std::to_string(options_.max_variants_per_key) +
                     " variants (cache.max_variants_per_key): the least recently used evicted (" +
                     std::to_string(read(counters_.variants_evicted)) + " variants evicted so far";
  if (*held > 0) line += ", " + std::to_string(*held) + " not logged since the last line";
  log(line + ")");
}

bool Store::release_tiers(Shard& s, EntryRef ref) {
  IndexEntry& e = s.index.at(ref);
  const bool file_may_exist = e.in(Tier::disk) || e.write_pending;
  if (e.in(Tier::memory)) {
    s.index.unlink(Tier::memory, ref);
    drop(counters_.memory_objects);
    drop(counters_.memory_bytes, object_bytes(*e.object));
  }
  if (e.in(Tier::disk)) {
    s.index.unlink(Tier::disk, ref);
    drop(counters_.disk_objects);
    drop(counters_.disk_bytes, e.disk_bytes);
    e.disk_bytes = 0;
  }
  e.write_pending = false;
  e.filling = false;
  e.object.reset();
  return file_may_exist;
}

// The entry leaves the store; with the key's last variant, the key leaves the
// filter.
void Store::erase_entry(Shard& s, EntryRef ref) {
  const filters::Hash128 key = s.index.at(ref).key_hash;
  if (release_tiers(s, ref)) queue_job(DiskJob::Kind::remove, s.index.at(ref), 0);
  drop(counters_.tag_pairs, s.tags.remove(ref));
  if (s.index.erase(ref)) {
    filter_.remove(key);
    s.names.remove(key);
  }
}

void Store::link_memory(Shard& s, EntryRef ref) {
  s.index.link(Tier::memory, ref);
  bump(counters_.memory_objects);
  bump(counters_.memory_bytes, object_bytes(*s.index.at(ref).object));
}

bool Store::queue_job(DiskJob::Kind kind, const IndexEntry& e, std::uint64_t bytes) {
  if (!writer_) return false;
  ObjectPtr object = kind == DiskJob::Kind::remove ? nullptr : e.object;
  return writer_->push({kind, e.key_hash, e.variant_hash, e.version, std::move(object), {}, 0},
                       bytes);
}

// Makes `object` the entry's content under a new version: into the memory
// tier when it fits, queued for the disk tier when there is one. A file left
// from the old content is overwritten by the queued write or removed; jobs run
// in queue order, so the last one queued for a path decides what it holds.
std::error_code Store::install(Shard& s, EntryRef ref, ObjectPtr object) {
  const bool had_file = release_tiers(s, ref);
  IndexEntry& e = s.index.at(ref);
  e.version = ++s.versions;
  e.object = std::move(object);
  const StoredObject& o = *e.object;
  if (o.body && object_bytes(o) <= options_.memory_max_bytes) link_memory(s, ref);
  if (writer_ && file_bytes_for(o) <= options_.disk_max_bytes) {
    // A body-less object is a refreshed head for a body that is only on disk.
    e.write_pending =
        o.body ? queue_job(DiskJob::Kind::write, e, object_bytes(o))
               : queue_job(DiskJob::Kind::rewrite_head, e, o.meta.size() + o.head.size());
    if (!e.write_pending) bump(counters_.disk_writes_skipped);
  }
  if (had_file && !e.write_pending) queue_job(DiskJob::Kind::remove, e, 0);
  if (e.in(Tier::memory) || e.write_pending) return {};
  erase_entry(s, ref);
  return writer_ ? StoreErrc::queue_full : StoreErrc::too_large;
}

// Memory eviction of an object that is on disk (or about to be) keeps it in
// the store; otherwise the object leaves the store.
void Store::evict(Tier tier, Shard& s, EntryRef ref) {
  IndexEntry& e = s.index.at(ref);
  if (tier == Tier::memory) {
    bump(counters_.memory_evictions);
    s.index.unlink(Tier::memory, ref);
    drop(counters_.memory_objects);
    drop(counters_.memory_bytes, object_bytes(*e.object));
    if (e.write_pending) return;  // the writer settles it: onto the disk, or out
    if (e.in(Tier::disk)) {
      e.object.reset();
      return;
    }
  } else {
    bump(counters_.disk_evictions);
    drop_file(s, ref);
    if (e.in(Tier::memory)) return;
  }
  erase_entry(s, ref);
}

void Store::drop_file(Shard& s, EntryRef ref) {
  IndexEntry& e = s.index.at(ref);
  s.index.unlink(Tier::disk, ref);
  drop(counters_.disk_objects);
  drop(counters_.disk_bytes, e.disk_bytes);
  e.disk_bytes = 0;
  queue_job(DiskJob::Kind::remove, e, 0);
}

// Shards take turns giving up their least recently used entry, one per lock,
// so no shard is drained for another's sake: an approximate global LRU (exact
// with one shard). Stops when a whole round of shards has nothing to give.
void Store::enforce_budget(Tier tier) {
  const bool memory = tier == Tier::memory;
  const Counter& used = memory ? counters_.memory_bytes : counters_.disk_bytes;
  const std::uint64_t budget = memory ? options_.memory_max_bytes : options_.disk_max_bytes;
  std::uint32_t empty_in_a_row = 0;
  while (read(used) > budget && empty_in_a_row < options_.shards) {
    Shard& s = shards_[evict_cursor_.fetch_add(1, std::memory_order_relaxed) % options_.shards];
    std::lock_guard lock(s.mutex);
    const EntryRef victim = s.index.least_recent(tier);
    if (victim == kNoEntry) {
      ++empty_in_a_row;
      continue;
    }
    empty_in_a_row = 0;
    evict(tier, s, victim);
  }
}

}  // namespace sumcache::daemon
