#pragma once
// cache and filter: the local store's budgets and the counting filter that summarises it.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "config/size_string.h"

namespace sumcache::config {

struct MemoryTierConfig {
  std::uint64_t max_bytes = 256 * kMiB;
  friend bool operator==(const MemoryTierConfig&, const MemoryTierConfig&) = default;
};

struct DiskTierConfig {
  bool enabled = true;
  std::filesystem::path path = "./var/cache";  // relative to the daemon's working directory
  std::uint64_t max_bytes = kGiB;
  bool fsync = false;
  friend bool operator==(const DiskTierConfig&, const DiskTierConfig&) = default;
};

struct CacheConfig {
  MemoryTierConfig memory;
  DiskTierConfig disk;
  std::uint64_t max_object_bytes = 64 * kMiB;
  // Heuristic freshness (RFC 9111 section 4.2.2): this fraction of the time since
  // Last-Modified, capped at heuristic_max_ms; 10% is the RFC's example.
  double heuristic_fraction = 0.1;
  std::chrono::milliseconds heuristic_max_ms{86400000};
  std::uint32_t shards = 64;
  // Tags (surrogate keys) of stored responses, for tag purges (docs/store.md,
  // "Tag index"): the response field that lists them, whether clients see it,
  // and the index's bounds.
  std::string tag_header = "Surrogate-Key";
  bool tag_header_pass = false;
  std::uint32_t max_tags_per_object = 64;
  std::uint64_t tag_index_max_entries = 1'000'000;
  // Variants (responses under one URL told apart by Vary) one URL may hold;
  // past it the least recently used goes (docs/store.md, "Variants"). 200 is
  // what Fastly keeps per object.
  std::uint32_t max_variants_per_key = 200;
  // Targeted cache-control fields (RFC 9213) this cache obeys over
  // Cache-Control and Expires, first in the list first; empty: none.
  std::vector<std::string> targeted_fields{"CDN-Cache-Control"};
  friend bool operator==(const CacheConfig&, const CacheConfig&) = default;
};

// Summary Cache (Fan et al., SIGCOMM 1998): 16 bits per cached document with k = 4.
// What a target_fpr is met with: the fewest bits in memory (optimal m and k),
// or the fewest bits on the wire for a transmitted summary (Mitzenmacher,
// "Compressed Bloom Filters", PODC 2001: a sparser array, k of 1 or 2).
enum class FilterObjective { memory, wire };

// What the store keeps of its keys and what peers are sent (docs/peers.md,
// "Summary kinds"): Summary Cache's counting Bloom filter, or a fingerprint
// summary (filters/fingerprint.h): a sorted multiset of one fingerprint per
// key, sent Rice coded.
enum class FilterKind { counting_bloom, fingerprint };

// The fingerprint kind's rate when filter.target_fpr is 0: the paper's, 16
// bits per entry with k = 4 (Fan et al., Table 3).
inline constexpr double kPaperFpr = 0.0023940562;

struct FilterConfig {
  FilterKind kind = FilterKind::counting_bloom;
  double bits_per_entry = 16;
  std::uint32_t hashes = 4;
  // > 0: m and k from this false positive rate and `objective`, and
  // bits_per_entry and hashes are ignored.
  double target_fpr = 0;
  FilterObjective objective = FilterObjective::memory;
  std::uint64_t expected_entries = 0;  // 0: derived, see filter_expected_entries()
  std::uint64_t avg_object_bytes = 16 * kKiB;
  friend bool operator==(const FilterConfig&, const FilterConfig&) = default;
};

}  // namespace sumcache::config
