#pragma once
// The store's counters that are not kept per shard: byte totals that the
// budgets read from every thread, and the rarer events. Relaxed atomics: each
// figure is exact on its own; a stats() snapshot is not one instant.

#include <atomic>
#include <cstdint>

namespace sumcache::daemon {

using Counter = std::atomic<std::uint64_t>;

inline void bump(Counter& c, std::uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }
inline void drop(Counter& c, std::uint64_t n = 1) { c.fetch_sub(n, std::memory_order_relaxed); }
inline std::uint64_t read(const Counter& c) { return c.load(std::memory_order_relaxed); }

struct StoreCounters {
  Counter memory_objects{0};
  Counter memory_bytes{0};
  Counter disk_objects{0};
  Counter disk_bytes{0};
  Counter disk_hits{0};
  Counter disk_misses{0};  // find() calls whose disk-only candidates all failed
  Counter memory_evictions{0};
  Counter disk_evictions{0};
  Counter disk_writes{0};
  Counter disk_write_errors{0};
  Counter disk_writes_skipped{0};
  Counter disk_read_errors{0};
  Counter damaged_files_removed{0};
  Counter disk_fills{0};
  Counter disk_fill_errors{0};
  Counter disk_stream_errors{0};
  Counter tag_pairs{0};  // reserved before a shard's TagIndex takes them: the bound's figure
  Counter tags_too_long{0};
  Counter objects_refused_tags{0};
  Counter variants_evicted{0};  // by max_variants_per_key
};

}  // namespace sumcache::daemon
