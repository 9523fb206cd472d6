#pragma once
// What a Store is opened with, and the figures it reports.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "daemon/store/object_tags.h"
#include "filters/filter_params.h"
#include "filters/hashing.h"

namespace sumcache::daemon {

inline constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

struct StoreOptions {
  std::uint64_t memory_max_bytes = 256 * kMiB;  // sum of object_bytes() in the memory tier
  bool disk_enabled = false;
  std::string disk_path;                            // the store owns this directory
  std::uint64_t disk_max_bytes = 10 * 1024 * kMiB;  // sum of file sizes
  bool fsync = false;                               // fsync file and directory on every write
  std::uint64_t max_object_bytes = 64 * kMiB;       // larger objects are refused
  // Writes queued for the disk hold their objects; past this, new objects
  // stay memory-only. At least min(max_object_bytes, memory_max_bytes).
  std::uint64_t write_queue_max_bytes = 256 * kMiB;
  // Read every file whole at open to check its checksum; otherwise open checks
  // sizes and the header checksum, and a damaged body is found when read.
  bool verify_bodies_on_open = false;
  std::uint32_t shards = 16;  // 1 to kMaxShards
  // 2^24 4-bit counters, k = 4: 8 MiB of counters, 16 bits per key at 10^6
  // keys (Summary Cache's load factor is 8 to 16).
  filters::BloomParams filter_params{std::uint64_t{1} << 24, 4};
  // > 0: the store keeps a fingerprint table of this universe instead of the
  // counting filter (filter.kind "fingerprint"; filter_params unused).
  std::uint64_t fingerprint_universe = 0;
  filters::Hasher hasher;
  // Tags of each object from its head's tag field (docs/store.md, "Tag index");
  // tags.field "" keeps no tag index. An object with more than tags.max_tags
  // tags, or whose tags would take the index past max_tag_pairs (tag, object)
  // pairs, is not stored: a tag purge could not find it.
  TagRules tags;
  std::uint64_t max_tag_pairs = 1'000'000;
  // Variants one key may hold (docs/store.md, "Variants"): a new one past
  // this evicts the key's least recently used. 200, as Fastly's cap.
  std::uint32_t max_variants_per_key = 200;
  // The group of a variant: the selecting fields it was keyed under (the
  // cache gives vary_fields, http/vary.h). Lookups build one variant per
  // group of the key (Store::find with a VariantSelector). Unset: every
  // variant is in the one group "".
  std::function<std::string(std::string_view variant)> variant_group;
  // Warnings (damaged files removed, I/O errors). Called from any thread,
  // possibly with a store lock held: it must not call into the Store.
  std::function<void(std::string_view)> log;
};

inline constexpr std::uint32_t kMaxShards = 4096;
// The bound of max_variants_per_key: a lookup without a selector, holds()
// and a purge walk all of a key's variants, so their number must stay small.
inline constexpr std::uint32_t kMaxVariantsPerKey = 10'000;
// Far above any response worth caching; keeps size arithmetic far from overflow.
inline constexpr std::uint64_t kMaxObjectBytesCap = std::uint64_t{1} << 40;

struct StoreStats {
  std::uint64_t keys = 0;     // distinct primary keys
  std::uint64_t objects = 0;  // distinct key + variant
  std::uint64_t memory_objects = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t disk_objects = 0;
  std::uint64_t disk_bytes = 0;
  std::uint64_t memory_hits = 0;  // objects find() returned with their body
  std::uint64_t disk_hits = 0;    // objects find() returned with the body on disk
  std::uint64_t misses = 0;       // find() calls that returned nothing
  std::uint64_t memory_evictions = 0;
  std::uint64_t disk_evictions = 0;
  std::uint64_t disk_writes = 0;
  std::uint64_t disk_write_errors = 0;
  std::uint64_t disk_writes_skipped = 0;  // queue full: the object stayed memory-only
  std::uint64_t disk_read_errors = 0;     // I/O errors other than damage
  std::uint64_t damaged_files_removed = 0;
  std::uint64_t disk_fills = 0;          // bodies larger than the memory tier written to disk
  std::uint64_t disk_fill_errors = 0;    // such fills that failed on a disk error
  std::uint64_t disk_stream_errors = 0;  // streamed disk hits cut short by the disk
  std::uint64_t queued_disk_jobs = 0;
  std::uint64_t queued_disk_bytes = 0;
  std::uint64_t index_bytes = 0;           // the index's own structures, objects excluded
  std::uint64_t tag_pairs = 0;             // (tag, object) pairs in the tag index
  std::uint64_t tags = 0;                  // distinct tags (a tag in n shards counts n times)
  std::uint64_t tags_too_long = 0;         // tags over tags.max_tag_bytes, left out of the index
  std::uint64_t objects_refused_tags = 0;  // not stored: too many tags, or the tag index full
  std::uint64_t variants_evicted = 0;      // by max_variants_per_key
};

struct FilterStats {
  bool fingerprint = false;  // a fingerprint table: m is its universe, k is 1
  std::uint64_t m = 0;
  std::uint32_t k = 0;
  std::uint64_t entries = 0;  // keys counted in the filter
  std::uint64_t nonzero = 0;
  std::uint64_t saturated = 0;
  std::uint64_t refused_removes = 0;  // each one a bug, logged
  std::uint64_t pending_changes = 0;
  std::uint64_t memory_bytes = 0;  // the structure itself (a table's change log included)
};

}  // namespace sumcache::daemon
