#pragma once
// What the admin endpoint needs beyond ProxyStats, recorded where a request's
// AccessRecord is finished: latency per result class, responses per status
// code, bytes per cache result, memory versus disk hits. One per worker,
// written by its thread alone (relaxed atomics, so the admin may read them);
// a request costs four increments on lines no other thread writes.

#include <array>
#include <atomic>
#include <cstdint>

#include "daemon/log/access_log.h"
#include "daemon/observe/latency_histogram.h"
#include "daemon/observe/proxy_stats.h"
#include "daemon/observe/rate_window.h"

namespace sumcache::daemon {

// hit: answered from the store without waiting on an upstream (HIT, STALE_HIT);
// miss: answered after an origin exchange, its own or a collapsed one's
// (MISS, REFRESH_HIT, REFRESH_MISS, COLLAPSED_HIT); peer_hit; other (PASS,
// TUNNEL, ERROR).
enum class LatencyClass { hit, miss, peer_hit, other };
inline constexpr std::size_t kLatencyClasses = 4;
const char* to_string(LatencyClass c);
LatencyClass latency_class(CacheResult r);

// GET or HEAD that went through the cache: the hit ratios' denominator.
bool is_cache_lookup(CacheResult r);
// The body came from this node's store. REFRESH_HIT counts, as in Squid's
// hit ratio (TCP_REFRESH_UNMODIFIED): the origin sent no body.
bool is_local_hit(CacheResult r);

inline constexpr unsigned kMaxStatusCode = 599;

struct RequestMetrics {
  std::array<LatencyHistogram, kLatencyClasses> latency;
  std::array<std::atomic<std::uint64_t>, kCacheResults> bytes_by_result{};
  std::array<std::atomic<std::uint64_t>, kMaxStatusCode + 1> by_status{};  // [0]: out of range
  std::atomic<std::uint64_t> memory_hits{0};
  std::atomic<std::uint64_t> disk_hits{0};

  void record(const AccessRecord& r);
};

// One worker's ratio counters at this moment, from its ProxyStats's results and ours.
WindowTotals window_totals(const ProxyStats& stats, const RequestMetrics& metrics);

}  // namespace sumcache::daemon
