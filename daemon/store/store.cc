#include "daemon/store/store.h"

#include <algorithm>
#include <cassert>

#include "daemon/store/object_file.h"
#include "daemon/store/store_error.h"
#include "daemon/store/store_shard.h"

namespace sumcache::daemon {
namespace {

std::error_code validate(const StoreOptions& o) {
  if (o.shards == 0 || o.shards > kMaxShards) return StoreErrc::invalid_options;
  if (o.max_object_bytes == 0 || o.max_object_bytes > kMaxObjectBytesCap) {
    return StoreErrc::invalid_options;
  }
  // The write queue must take the largest object held whole; larger ones
  // come through begin_disk_fill, never the queue.
  const std::uint64_t largest_queued = std::min(o.max_object_bytes, o.memory_max_bytes);
  if (o.disk_enabled && (o.disk_path.empty() || o.write_queue_max_bytes < largest_queued)) {
    return StoreErrc::invalid_options;
  }
  if (o.fingerprint_universe > filters::kMaxUniverse) return StoreErrc::invalid_options;
  if (o.max_variants_per_key == 0 || o.max_variants_per_key > kMaxVariantsPerKey) {
    return StoreErrc::invalid_options;
  }
  return o.fingerprint_universe > 0 ? std::error_code{} : filters::validate(o.filter_params);
}

}  // namespace

Store::Store(StoreOptions options, KeyFilter::Structure structure)
    : options_(std::move(options)),
      limits_{options_.max_object_bytes, options_.hasher},
      shards_(std::make_unique<Shard[]>(options_.shards)),
      filter_(std::move(structure), options_.log) {}

// The I/O pool first (a fill's commit queues a job for the writer), then the
// writer: its last jobs still settle into the index.
Store::~Store() {
  io_.stop();
  writer_.reset();
}

Result<std::unique_ptr<Store>> Store::open(StoreOptions options) {
  if (auto ec = validate(options)) return ec;
  std::optional<KeyFilter::Structure> structure;
  if (options.fingerprint_universe > 0) {
    auto table = filters::FingerprintTable::create(options.fingerprint_universe);
    if (!table) return table.error();
    structure.emplace(std::move(table).value());
  } else {
    auto counting = filters::CountingBloomFilter::create(options.filter_params, options.hasher);
    if (!counting) return counting.error();
    structure.emplace(std::move(counting).value());
  }
  std::unique_ptr<Store> store(new Store(std::move(options), std::move(*structure)));
  if (store->options_.disk_enabled) {
    if (auto ec = store->open_disk_tier()) return ec;
  }
  return store;
}

Store::Shard& Store::shard_of(const filters::Hash128& hash) const {
  return shards_[filters::reduce(hash.h1, options_.shards)];
}

void Store::log(std::string_view message) const {
  if (options_.log) options_.log(message);
}

std::vector<ObjectPtr> Store::find(std::string_view key) {
  std::vector<ObjectPtr> out;
  find(key, hash_key(key), out);
  return out;
}

bool Store::holds(std::string_view key, const filters::Hash128& hash) const {
  Shard& s = shard_of(hash);
  std::lock_guard lock(s.mutex);
  for (EntryRef ref = s.index.first_variant(hash); ref != kNoEntry;
       ref = s.index.at(ref).next_variant) {
    const IndexEntry& e = s.index.at(ref);
    // A disk-only entry keeps no key: its 128-bit hash stands for it.
    if (!e.object || e.object->key == key) return true;
  }
  return false;
}

void Store::take_found(Shard& s, EntryRef ref, std::string_view key, std::vector<ObjectPtr>& out,
                       std::vector<DiskCandidate>& on_disk) {
  const IndexEntry& e = s.index.at(ref);
  if (!e.object) {
    s.index.touch(Tier::disk, ref);
    on_disk.push_back({e.variant_hash, e.version});
    return;
  }
  if (e.object->key != key) return;  // another key with the same 128-bit hash
  s.index.touch(Tier::memory, ref);
  s.index.touch(Tier::disk, ref);
  if (e.object->body) {
    ++s.memory_hits;
  } else {
    bump(counters_.disk_hits);  // a refreshed head whose file is being rewritten
  }
  out.push_back(e.object);
}

void Store::finish_find(std::string_view key, const filters::Hash128& hash,
                        std::vector<ObjectPtr>& out, std::vector<DiskCandidate>& candidates,
                        bool caller_opens) {
  if (caller_opens || candidates.empty()) return;
  std::vector<ObjectPtr> found = find_on_disk(key, hash, candidates);
  candidates.clear();
  for (auto& o : found) out.push_back(std::move(o));
}

void Store::find(std::string_view key, const filters::Hash128& hash, std::vector<ObjectPtr>& out,
                 std::vector<DiskCandidate>* on_disk) {
  out.clear();
  thread_local std::vector<DiskCandidate> opened_here;
  std::vector<DiskCandidate>& candidates = on_disk != nullptr ? *on_disk : opened_here;
  candidates.clear();
  Shard& s = shard_of(hash);
  {
    std::lock_guard lock(s.mutex);
    for (EntryRef ref = s.index.first_variant(hash); ref != kNoEntry;
         ref = s.index.at(ref).next_variant) {
      take_found(s, ref, key, out, candidates);
    }
    if (out.empty() && candidates.empty()) ++s.misses;
  }
  finish_find(key, hash, out, candidates, on_disk != nullptr);
}

void Store::find(std::string_view key, const filters::Hash128& hash, VariantSelector& select,
                 std::vector<ObjectPtr>& out, std::vector<DiskCandidate>* on_disk) {
  out.clear();
  thread_local std::vector<DiskCandidate> opened_here;
  thread_local std::string variant;
  std::vector<DiskCandidate>& candidates = on_disk != nullptr ? *on_disk : opened_here;
  candidates.clear();
  Shard& s = shard_of(hash);
  {
    std::lock_guard lock(s.mutex);
    s.index.for_each_group(hash, [&](std::string_view group) {
      if (!select.select(group, variant)) return;
      const EntryRef ref = s.index.use(hash, variant_hash(options_.hasher, variant));
      if (ref == kNoEntry) return;
      const IndexEntry& e = s.index.at(ref);
      // The hash only narrows: a memory-resident variant is compared whole
      // here, a disk-only one against its file's header by the caller.
      if (e.object && e.object->variant != variant) return;
      take_found(s, ref, key, out, candidates);
    });
    if (out.empty() && candidates.empty()) ++s.misses;
  }
  finish_find(key, hash, out, candidates, on_disk != nullptr);
}

std::vector<ObjectPtr> Store::find_on_disk(std::string_view key, const filters::Hash128& hash,
                                           const std::vector<DiskCandidate>& on_disk) {
  std::vector<ObjectPtr> out;
  for (const DiskCandidate& c : on_disk) {
    auto file = open_object_file(path_of(hash, c.variant_hash), limits_);
    if (!file) {
      report_read_error(hash, c.variant_hash, c.version, file.error());
      continue;
    }
    ObjectHeader& h = file->header;
    if (h.key != key) continue;  // a hash collision: a miss, not another key's object
    out.push_back(std::make_shared<const StoredObject>(
        StoredObject{std::move(h.key), std::move(h.variant), hash, std::move(h.meta),
                     std::move(h.head), nullptr, h.prelude.body_bytes}));
    bump(counters_.disk_hits);
  }
  if (out.empty() && !on_disk.empty()) bump(counters_.disk_misses);
  return out;
}

std::error_code Store::insert(StoredObject object) {
  if (object.key.empty() || !object.body || object.body->size() != object.body_size) {
    return StoreErrc::invalid_object;
  }
  if (auto ec = check_field_caps(object)) return ec;
  const std::uint64_t bytes = object_bytes(object);
  const bool fits_disk = writer_ && file_bytes_for(object) <= options_.disk_max_bytes;
  if (bytes > options_.max_object_bytes || (bytes > options_.memory_max_bytes && !fits_disk)) {
    return StoreErrc::too_large;
  }
  assert(object.hash == hash_key(object.key) && "StoredObject::hash must be hash_key(key)");
  auto tags = tags_to_index(object);
  if (!tags) return tags.error();
  const std::uint64_t variant = variant_hash(options_.hasher, object.variant);
  const std::string group = group_of(object.variant);
  auto published = std::make_shared<const StoredObject>(std::move(object));
  Shard& s = shard_of(published->hash);
  std::error_code ec;
  {
    std::lock_guard lock(s.mutex);
    const EntryRef ref = find_or_add(s, published->hash, variant, published->key, group);
    if (set_tags(s, ref, std::move(tags).value())) {
      ec = install(s, ref, std::move(published));
    } else {
      erase_entry(s, ref);  // a replaced object goes too: its successor could not be purged by tag
      ec = StoreErrc::tag_index_full;
    }
  }
  // Not installed: `published` is still ours.
  if (ec == StoreErrc::tag_index_full) log_tag_problem(published->key, "tag index full");
  enforce_budget(Tier::memory);
  return ec;
}

Result<std::vector<std::string>> Store::tags_to_index(const StoredObject& object) {
  if (options_.tags.field.empty()) return std::vector<std::string>{};
  ObjectTags tags = object_tags(object.head, options_.tags);
  if (tags.too_long > 0) {
    bump(counters_.tags_too_long, tags.too_long);
    log_tag_problem(object.key, "tag longer than " + std::to_string(options_.tags.max_tag_bytes) +
                                    " bytes left out of the tag index");
  }
  if (tags.too_many) {
    bump(counters_.objects_refused_tags);
    log_tag_problem(object.key,
                    "more than " + std::to_string(options_.tags.max_tags) + " tags: not stored");
    return make_error_code(StoreErrc::too_many_tags);
  }
  return std::move(tags.tags);
}

void Store::log_tag_problem(std::string_view key, std::string_view what) {
  const auto held = tag_log_.admit(LogLimiter::Clock::now());
  if (!held) return;
  std::string line = "store: " + std::string(key.substr(0, 256)) + ": " + std::string(what) + " (" +
                     std::to_string(read(counters_.objects_refused_tags)) +
                     " objects refused for their tags, " +
                     std::to_string(read(counters_.tags_too_long)) + " tags too long so far";
  if (*held > 0) line += ", " + std::to_string(*held) + " not logged since the last line";
  log(line + ")");
}

bool Store::set_tags(Shard& s, EntryRef ref, std::vector<std::string> tags) {
  drop(counters_.tag_pairs, s.tags.remove(ref));
  if (tags.empty()) return true;
  const std::uint64_t n = tags.size();
  if (counters_.tag_pairs.fetch_add(n, std::memory_order_relaxed) + n > options_.max_tag_pairs) {
    drop(counters_.tag_pairs, n);
    bump(counters_.objects_refused_tags);
    return false;
  }
  s.tags.add(ref, std::move(tags));
  return true;
}

std::size_t Store::remove_tag(std::string_view tag) {
  std::size_t removed = 0;
  for (std::uint32_t i = 0; i < options_.shards; ++i) {
    Shard& s = shards_[i];
    for (;;) {
      std::lock_guard lock(s.mutex);
      const std::vector<EntryRef> refs = s.tags.entries(tag, kPurgeChunk);
      for (EntryRef ref : refs) erase_entry(s, ref);
      removed += refs.size();
      if (refs.size() < kPurgeChunk) break;
    }
  }
  return removed;
}

std::size_t Store::remove_prefix(std::string_view prefix) {
  std::size_t removed = 0;
  for (std::uint32_t i = 0; i < options_.shards; ++i) {
    Shard& s = shards_[i];
    for (;;) {
      std::lock_guard lock(s.mutex);
      const std::vector<filters::Hash128> keys = s.names.with_prefix(prefix, kPurgeChunk);
      for (const filters::Hash128& hash : keys) {
        for (EntryRef ref = s.index.first_variant(hash); ref != kNoEntry;
             ref = s.index.first_variant(hash)) {
          erase_entry(s, ref);
          ++removed;
        }
      }
      if (keys.size() < kPurgeChunk) break;
    }
  }
  return removed;
}

std::size_t Store::remove(std::string_view key) {
  const filters::Hash128 hash = hash_key(key);
  Shard& s = shard_of(hash);
  std::lock_guard lock(s.mutex);
  std::size_t removed = 0;
  for (EntryRef ref = s.index.first_variant(hash); ref != kNoEntry;
       ref = s.index.first_variant(hash)) {
    erase_entry(s, ref);
    ++removed;
  }
  return removed;
}

bool Store::remove_variant(std::string_view key, std::string_view variant) {
  const filters::Hash128 hash = hash_key(key);
  Shard& s = shard_of(hash);
  std::lock_guard lock(s.mutex);
  const EntryRef ref = s.index.find(hash, variant_hash(options_.hasher, variant));
  if (ref == kNoEntry) return false;
  erase_entry(s, ref);
  return true;
}

std::error_code Store::update_meta(std::string_view key, std::string_view variant, std::string meta,
                                   std::string head) {
  const filters::Hash128 hash = hash_key(key);
  const std::uint64_t vh = variant_hash(options_.hasher, variant);
  Shard& s = shard_of(hash);
  ObjectPtr current;
  std::uint32_t version = 0;
  {
    std::lock_guard lock(s.mutex);
    const EntryRef ref = s.index.find(hash, vh);
    if (ref == kNoEntry) return StoreErrc::not_found;
    current = s.index.at(ref).object;
    version = s.index.at(ref).version;
  }
  StoredObject next{
      std::string(key), std::string(variant), hash, std::move(meta), std::move(head), nullptr, 0};
  if (current) {
    if (current->key != key) return StoreErrc::not_found;
    next.body = current->body;
    next.body_size = current->body_size;
  } else {
    // Disk-only: the body's size is in the file's header (read, not written,
    // on this thread; the rewrite is the writer's).
    auto file = open_object_file(path_of(hash, vh), limits_);
    if (!file) {
      report_read_error(hash, vh, version, file.error());
      return file.error();
    }
    if (file->header.key != key) return StoreErrc::not_found;
    next.body_size = file->header.prelude.body_bytes;
  }
  if (auto ec = check_field_caps(next)) return ec;
  if (object_bytes(next) > options_.max_object_bytes) return StoreErrc::too_large;
  // A 304 may bring other tags (§4.3.4 updates the stored fields): the
  // object's tags are the refreshed head's, or the object goes.
  auto tags = tags_to_index(next);
  std::error_code ec;
  {
    std::lock_guard lock(s.mutex);
    const EntryRef ref = s.index.find(hash, vh);
    if (ref == kNoEntry || s.index.at(ref).version != version) return StoreErrc::stale;
    if (!tags) {
      erase_entry(s, ref);
      return tags.error();
    }
    if (set_tags(s, ref, std::move(tags).value())) {
      ec = install(s, ref, std::make_shared<const StoredObject>(std::move(next)));
    } else {
      erase_entry(s, ref);
      ec = StoreErrc::tag_index_full;
    }
  }
  if (ec == StoreErrc::tag_index_full) log_tag_problem(key, "tag index full");
  enforce_budget(Tier::memory);
  return ec;
}

void Store::flush() {
  if (writer_) writer_->flush();
}

StoreStats Store::stats() const {
  StoreStats st;
  for (std::uint32_t i = 0; i < options_.shards; ++i) {
    Shard& s = shards_[i];
    std::lock_guard lock(s.mutex);
    st.keys += s.index.keys();
    st.objects += s.index.entries();
    st.memory_hits += s.memory_hits;
    st.misses += s.misses;
    st.index_bytes += s.index.index_bytes();
    st.tags += s.tags.tags();
  }
  const StoreCounters& c = counters_;
  st.misses += read(c.disk_misses);
  st.memory_objects = read(c.memory_objects);
  st.memory_bytes = read(c.memory_bytes);
  st.disk_objects = read(c.disk_objects);
  st.disk_bytes = read(c.disk_bytes);
  st.disk_hits = read(c.disk_hits);
  st.memory_evictions = read(c.memory_evictions);
  st.disk_evictions = read(c.disk_evictions);
  st.disk_writes = read(c.disk_writes);
  st.disk_write_errors = read(c.disk_write_errors);
  st.disk_writes_skipped = read(c.disk_writes_skipped);
  st.disk_read_errors = read(c.disk_read_errors);
  st.damaged_files_removed = read(c.damaged_files_removed);
  st.disk_fills = read(c.disk_fills);
  st.disk_fill_errors = read(c.disk_fill_errors);
  st.disk_stream_errors = read(c.disk_stream_errors);
  st.tag_pairs = read(c.tag_pairs);
  st.tags_too_long = read(c.tags_too_long);
  st.objects_refused_tags = read(c.objects_refused_tags);
  st.variants_evicted = read(c.variants_evicted);
  if (writer_) {
    st.queued_disk_jobs = writer_->queued_jobs();
    st.queued_disk_bytes = writer_->queued_bytes();
  }
  return st;
}

FilterStats Store::filter_stats() const { return filter_.stats(); }
filters::BloomFilter Store::filter_snapshot() const { return filter_.snapshot(); }

std::vector<std::string> Store::key_names(std::size_t shard, std::string_view after,
                                          std::size_t limit) const {
  if (shard >= options_.shards) return {};
  Shard& s = shards_[shard];
  std::lock_guard lock(s.mutex);
  return s.names.after(after, limit);
}

IndexSnapshot Store::index_snapshot() const {
  // Shard locks in index order, then the filter's: the order every path takes.
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(options_.shards);
  for (std::uint32_t i = 0; i < options_.shards; ++i) locks.emplace_back(shards_[i].mutex);
  IndexSnapshot snapshot;
  if (filter_.fingerprints()) {
    snapshot.fingerprints = filter_.copy_table();
  } else {
    snapshot.filter = filter_.copy();
  }
  for (std::uint32_t i = 0; i < options_.shards; ++i) {
    shards_[i].index.for_each_key([&](const filters::Hash128& h) { snapshot.keys.push_back(h); });
  }
  return snapshot;
}

}  // namespace sumcache::daemon
