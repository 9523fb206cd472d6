#include "daemon/observe/request_metrics.h"

namespace sumcache::daemon {
namespace {

std::uint64_t load(const std::atomic<std::uint64_t>& c) {
  return c.load(std::memory_order_relaxed);
}

}  // namespace

const char* to_string(LatencyClass c) {
  switch (c) {
    case LatencyClass::hit:
      return "hit";
    case LatencyClass::miss:
      return "miss";
    case LatencyClass::peer_hit:
      return "peer_hit";
    case LatencyClass::other:
      return "other";
  }
  return "other";
}

LatencyClass latency_class(CacheResult r) {
  switch (r) {
    case CacheResult::hit:
    case CacheResult::stale_hit:
      return LatencyClass::hit;
    case CacheResult::miss:
    case CacheResult::refresh_hit:
    case CacheResult::refresh_miss:
    case CacheResult::collapsed_hit:
    case CacheResult::owner:
      return LatencyClass::miss;
    case CacheResult::peer_hit:
      return LatencyClass::peer_hit;
    case CacheResult::pass:
    case CacheResult::tunnel:
    case CacheResult::error:
      return LatencyClass::other;
  }
  return LatencyClass::other;
}

bool is_cache_lookup(CacheResult r) {
  return r != CacheResult::pass && r != CacheResult::tunnel && r != CacheResult::error;
}

bool is_local_hit(CacheResult r) {
  return r == CacheResult::hit || r == CacheResult::stale_hit || r == CacheResult::collapsed_hit ||
         r == CacheResult::refresh_hit;
}

void RequestMetrics::record(const AccessRecord& r) {
  const auto micros = r.elapsed.count() > 0 ? static_cast<std::uint64_t>(r.elapsed.count()) : 0;
  latency[static_cast<std::size_t>(latency_class(r.result))].record(micros);
  bytes_by_result[static_cast<std::size_t>(r.result)].fetch_add(r.bytes, std::memory_order_relaxed);
  by_status[r.status <= kMaxStatusCode ? r.status : 0].fetch_add(1, std::memory_order_relaxed);
  if (is_local_hit(r.result)) {
    (r.from_disk ? disk_hits : memory_hits).fetch_add(1, std::memory_order_relaxed);
  }
}

WindowTotals window_totals(const ProxyStats& stats, const RequestMetrics& metrics) {
  WindowTotals t;
  for (std::size_t i = 0; i < kCacheResults; ++i) {
    const auto result = static_cast<CacheResult>(i);
    if (!is_cache_lookup(result)) continue;
    const std::uint64_t n = load(stats.results[i]);
    const std::uint64_t bytes = load(metrics.bytes_by_result[i]);
    t.requests += n;
    t.bytes += bytes;
    if (is_local_hit(result)) {
      t.local_hits += n;
      t.local_hit_bytes += bytes;
    } else if (result == CacheResult::peer_hit) {
      t.peer_hits += n;
      t.peer_hit_bytes += bytes;
    }
  }
  return t;
}

}  // namespace sumcache::daemon
