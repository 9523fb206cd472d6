#pragma once
// The cache store: a memory tier and an optional disk tier under one sharded
// index, and the counting Bloom filter of its primary keys that peers get as
// this node's summary. Thread-safe. Design, file format and invariants:
// docs/store.md.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "daemon/log/log_limiter.h"
#include "daemon/store/body_reader.h"
#include "daemon/store/disk_fill.h"
#include "daemon/store/disk_writer.h"
#include "daemon/store/index_shard.h"
#include "daemon/store/key_filter.h"
#include "daemon/store/object_file_io.h"
#include "daemon/store/store_counters.h"
#include "daemon/store/store_io.h"
#include "daemon/store/store_options.h"
#include "daemon/store/stored_object.h"
#include "filters/result.h"

namespace sumcache::daemon {

// Every primary key hash in the index and a copy of the counting filter or fingerprint table,
// taken under all locks at once. O(objects): for audits, not the hot path.
// A disk-only variant that find() left for find_on_disk(): its file not yet opened.
struct DiskCandidate {
  std::uint64_t variant_hash = 0;
  std::uint32_t version = 0;
};

// What a lookup is for: the variant string a request has under each group of
// a key's variants (StoreOptions::variant_group), so that each group costs
// one hash and one look in the index, never a comparison per variant.
class VariantSelector {
 public:
  // The variant the request selects among variants keyed under `group`,
  // written to `variant`; false when it selects none.
  virtual bool select(std::string_view group, std::string& variant) = 0;

 protected:
  ~VariantSelector() = default;
};

struct IndexSnapshot {
  std::vector<filters::Hash128> keys;
  std::optional<filters::CountingBloomFilter> filter;     // filter.kind counting-bloom
  std::optional<filters::FingerprintTable> fingerprints;  // filter.kind fingerprint
};

class Store {
 public:
  // Scans the disk tier when enabled: valid files join the index and the
  // filter; damaged, partial and temp files are removed and logged.
  static Result<std::unique_ptr<Store>> open(StoreOptions options);
  ~Store();  // runs the queued I/O jobs, then finishes the queued disk writes
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  filters::Hash128 hash_key(std::string_view key) const { return options_.hasher(key); }
  const filters::Hasher& hasher() const { return options_.hasher; }
  filters::HashId hash_id() const { return options_.hasher.id(); }

  // Every variant stored under key. Memory-resident ones carry their body;
  // disk-only ones have body == nullptr (head and meta read from the file's
  // verified header): get the body with load_body() or open_body().
  std::vector<ObjectPtr> find(std::string_view key);
  // The same into a caller's vector (cleared first), hash already computed:
  // a memory hit then allocates nothing once `out` has capacity. With
  // `on_disk`, the disk-only variants are not opened but listed there (for
  // find_on_disk() on the I/O pool): this call then does no file I/O.
  void find(std::string_view key, const filters::Hash128& hash, std::vector<ObjectPtr>& out,
            std::vector<DiskCandidate>* on_disk = nullptr);
  // The disk-only variants find() listed, from their files' verified headers
  // (body null). Opens files: call it on the I/O pool.
  // The variants `select` picks: at most one per group of the key's variants,
  // each found by its variant hash and then compared whole (a hash
  // collision is a miss), and made the key's most recently used. `select`
  // runs under the shard lock. Otherwise as the find() above.
  void find(std::string_view key, const filters::Hash128& hash, VariantSelector& select,
            std::vector<ObjectPtr>& out, std::vector<DiskCandidate>* on_disk);
  std::vector<ObjectPtr> find_on_disk(std::string_view key, const filters::Hash128& hash,
                                      const std::vector<DiskCandidate>& on_disk);
  // Whether any variant of key is stored, without counting a hit or moving it
  // in the eviction order: for answering a peer's ICP query (a question, not a use).
  bool holds(std::string_view key, const filters::Hash128& hash) const;

  // The body of an object from find(). From disk: read whole, checksum
  // verified, and the object promoted into the memory tier when it fits.
  // Any error means a miss; a damaged file is removed and logged.
  Result<std::shared_ptr<const std::string>> load_body(const ObjectPtr& object);
  // A reader for bodies too large to read whole; it must not outlive the store.
  Result<BodyReader> open_body(const StoredObject& object);

  // A body larger than the memory tier, written to the disk tier as it
  // arrives (docs/store.md, "Disk-only fills"). `object` has no body and
  // body_size is the declared length. Creates the temp file: call it on the
  // I/O pool. disk_disabled without a disk tier; too_large past
  // max_object_bytes or the disk budget.
  Result<std::unique_ptr<DiskFill>> begin_disk_fill(StoredObject object);

  // Runs `job` on one of the store's I/O threads (after stop_io(): on the
  // caller's). File opens, body reads and fill writes go there so that no
  // proxy worker waits on the disk.
  void post_io(std::function<void()> job) { io_.post(std::move(job)); }
  // Runs the queued I/O jobs and stops the pool: call it once the workers
  // that post completions are stopped, before their executors go away.
  void stop_io() { io_.stop(); }
  // With a disk tier: the largest body a fill keeps in memory; a larger one is
  // written to disk as it streams (begin_disk_fill), or not stored without
  // a declared length. Without one: max_object_bytes (the config requires the
  // memory tier to hold it).
  std::uint64_t memory_room() const {
    return std::min(options_.memory_max_bytes, options_.max_object_bytes);
  }
  bool has_disk_tier() const { return writer_ != nullptr; }
  // A fill that failed on the disk (or timed out waiting for it): counted
  // (disk_fill_errors) and logged once per interval.
  void note_fill_error(std::string_view path, std::error_code ec);
  // A streamed disk hit cut short after its head was sent (a read error, a
  // damaged file found at the end, a read that timed out): counted
  // (disk_stream_errors) and logged once per interval.
  void note_stream_error(std::string_view key, std::error_code ec);

  // Replaces any object with the same key and variant. object.hash must be
  // hash_key(object.key).
  std::error_code insert(StoredObject object);
  std::size_t remove(std::string_view key);  // every variant; returns how many
  // Every object tagged `tag` (docs/store.md, "Tag index"), and every variant
  // of every key that starts with `prefix` ("Key names"): each found through
  // an index, never a walk of the store, and removed kPurgeChunk entries per
  // shard lock so that lookups on the shard wait little. Returns how many.
  std::size_t remove_tag(std::string_view tag);
  std::size_t remove_prefix(std::string_view prefix);
  static constexpr std::size_t kPurgeChunk = 256;
  // Page-cache reads and writes take microseconds; two threads keep one
  // slow device read from holding up every other hit.
  static constexpr std::size_t kIoThreads = 2;
  bool remove_variant(std::string_view key, std::string_view variant);
  // A 304 refresh (RFC 9111 §4.3.4): new meta and head, same body, also on disk.
  std::error_code update_meta(std::string_view key, std::string_view variant, std::string meta,
                              std::string head);
  // Returns once every queued disk operation is done.
  void flush();

  StoreStats stats() const;
  FilterStats filter_stats() const;
  filters::BloomFilter filter_snapshot() const;
  // The bits changed since the last call (or the store's open), each with its
  // value now: a summary delta (docs/peers.md). Deltas state values, not
  // flips, so one that overlaps a full snapshot sent meanwhile is harmless.
  // change_log_overflow means: publish filter_snapshot() in full.
  Result<std::vector<filters::BitChange>> take_filter_delta() { return filter_.take_delta(); }
  std::uint64_t filter_keys_added() const { return filter_.keys_added_since_mark(); }
  // filter.kind fingerprint (docs/peers.md, "Summary kinds"): whether the
  // store keeps a fingerprint table; a publication of it (KeyFilter); the set
  // at the last publication when nothing changed since.
  bool keeps_fingerprints() const { return filter_.fingerprints(); }
  FingerprintRound take_fingerprint_round(bool want_sorted) {
    return filter_.take_fingerprint_round(want_sorted);
  }
  std::optional<std::vector<std::uint64_t>> fingerprints_if_unchanged() const {
    return filter_.sorted_if_unchanged();
  }
  IndexSnapshot index_snapshot() const;
  // Every primary key, walked shard by shard (shard < shard_count()) in steps
  // of at most `limit` keys after `after` ("" starts a shard): each step holds
  // the shard's lock for one step only, so a walk of a large store never
  // holds up lookups for long. Keys stored or removed during a walk may or
  // may not be seen. For derived views (the Squid digest, docs/interop.md).
  std::size_t shard_count() const { return options_.shards; }
  std::vector<std::string> key_names(std::size_t shard, std::string_view after,
                                     std::size_t limit) const;

 private:
  friend class BodyReader;
  friend class DiskFill;
  struct Shard;
  struct FileRead;

  Store(StoreOptions options, KeyFilter::Structure structure);
  Shard& shard_of(const filters::Hash128& hash) const;
  void log(std::string_view message) const;
  // A failed disk write or remove (disk full: one per object): logged once per
  // interval with the count, as every degraded path (docs/store.md).
  void log_write_error(std::string line);
  // An object's tags over a bound (counted in StoreCounters): logged once per
  // interval with the counts. No lock held.
  void log_tag_problem(std::string_view key, std::string_view what);
  // The tags of an object about to be stored; too_many_tags when it must not be.
  Result<std::vector<std::string>> tags_to_index(const StoredObject& object);
  // Shard lock held:
  // The entry of (hash, variant); a new key joins the filter and the key names.
  // Past max_variants_per_key, the key's least recently used variant goes.
  EntryRef find_or_add(Shard& s, const filters::Hash128& hash, std::uint64_t variant,
                       std::string_view key, std::string_view group);
  void cap_variants(Shard& s, const filters::Hash128& hash, std::string_view key);
  std::string group_of(std::string_view variant) const {
    return options_.variant_group ? options_.variant_group(variant) : std::string();
  }
  // An entry found for a lookup: into `out` when memory-resident and of
  // `key`, into `on_disk` when disk-only.
  void take_found(Shard& s, EntryRef ref, std::string_view key, std::vector<ObjectPtr>& out,
                  std::vector<DiskCandidate>& on_disk);
  // Looks up the disk-only candidates when the caller did not ask for them.
  void finish_find(std::string_view key, const filters::Hash128& hash, std::vector<ObjectPtr>& out,
                   std::vector<DiskCandidate>& candidates, bool caller_opens);
  bool release_tiers(Shard& s, EntryRef ref);
  void erase_entry(Shard& s, EntryRef ref);
  void evict(Tier tier, Shard& s, EntryRef ref);
  void drop_file(Shard& s, EntryRef ref);
  // The entry's tags become `tags`; false, with no tags left on it, when the
  // index would pass max_tag_pairs.
  bool set_tags(Shard& s, EntryRef ref, std::vector<std::string> tags);
  void link_memory(Shard& s, EntryRef ref);
  bool queue_job(DiskJob::Kind kind, const IndexEntry& e, std::uint64_t bytes);
  std::error_code install(Shard& s, EntryRef ref, ObjectPtr object);
  // No lock held:
  void enforce_budget(Tier tier);
  std::error_code open_disk_tier();
  std::error_code lock_disk_tier();
  void run_disk_job(const DiskJob& job);
  void settle_write(const DiskJob& job, const Result<std::uint64_t>& written);
  Result<FileRead> open_for_read(const StoredObject& object);
  // A finished fill's file joins the index and the filter; the writer thread
  // renames it into place (DiskJob::Kind::place).
  std::error_code adopt_fill(const ObjectPtr& object, StreamedObjectFile& file,
                             std::uint64_t file_bytes);
  void report_read_error(const filters::Hash128& hash, std::uint64_t variant_hash,
                         std::uint32_t version, std::error_code ec);
  void promote(const StoredObject& object, std::shared_ptr<const std::string> body,
               std::uint64_t variant_hash, std::uint32_t version);
  std::string path_of(const filters::Hash128& hash, std::uint64_t variant_hash) const;

  StoreOptions options_;
  FileLimits limits_;
  std::unique_ptr<Shard[]> shards_;
  mutable KeyFilter filter_;
  mutable StoreCounters counters_;
  std::atomic<std::uint32_t> evict_cursor_{0};
  UniqueFd disk_lock_;          // flock()ed while the store is open
  LogLimiter write_error_log_;  // the writer thread's
  LogLimiter tag_log_;
  LogLimiter fill_error_log_;
  LogLimiter stream_error_log_;
  LogLimiter variant_log_;
  std::atomic<std::uint64_t> next_sequence_{1};  // the writer's and the fills'
  std::atomic<std::uint64_t> next_fill_id_{1};   // names each fill's temp file
  StoreIo io_{kIoThreads};
  std::unique_ptr<DiskWriter> writer_;  // last: its thread uses everything above
};

}  // namespace sumcache::daemon
