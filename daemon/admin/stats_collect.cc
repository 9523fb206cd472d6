#include "daemon/admin/stats_collect.h"

#include "config/config_json.h"
#include "daemon/cache/cache_service.h"
#include "daemon/peer/peer_service.h"

namespace sumcache::daemon {
namespace {

std::uint64_t load(const std::atomic<std::uint64_t>& c) {
  return c.load(std::memory_order_relaxed);
}

double ratio(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

void collect_requests(const ProxyShared& shared, StatsSnapshot& s) {
  const ProxyStats& st = shared.stats;
  const RequestMetrics& m = shared.metrics;
  s.requests = load(st.requests);
  for (std::size_t i = 0; i < kCacheResults; ++i) {
    s.results[i] = load(st.results[i]);
    s.result_bytes[i] = load(m.bytes_by_result[i]);
  }
  for (unsigned code = 0; code <= kMaxStatusCode; ++code) {
    if (const auto n = load(m.by_status[code])) s.statuses.emplace_back(code, n);
  }
  s.memory_hits = load(m.memory_hits);
  s.disk_hits = load(m.disk_hits);
  s.bytes_in = load(st.bytes_in);
  s.bytes_out = load(st.bytes_out);
  s.peer_requests = load(st.peer_requests);
  s.peer_false_hits = load(st.peer_false_hits);
  s.peer_copies_purged = load(st.peer_copies_purged);
  s.peer_errors = load(st.peer_errors);
  s.owner_fetches = load(st.owner_fetches);
  s.owner_fallbacks = load(st.owner_fallbacks);
  for (std::size_t i = 0; i < protocol::kPeerAuthReasons; ++i) {
    s.peer_auth_refused[i] = load(st.peer_auth_refused[i]);
  }
  s.peer_object_connections = load(st.peer_object_connections);
  for (std::size_t i = 0; i < kPeerObjectRefusals; ++i) {
    s.peer_object_refused[i] = load(st.peer_object_refused[i]);
  }
  s.refused_connections = load(st.refused_connections);
  s.upstream_errors = load(st.upstream_errors);
  s.framing_refused_requests = load(st.framing_refused_requests);
  s.framing_refused_responses = load(st.framing_refused_responses);
  s.upstream_line_too_long = load(st.upstream_line_too_long);
  for (std::size_t i = 0; i < s.refused_destinations.size(); ++i) {
    s.refused_destinations[i] = load(st.refused_destinations[i]);
  }
  s.admin_sessions_closed = load(st.admin_sessions_closed);
  s.upstream_truncated = load(st.upstream_truncated);
  s.fills_not_stored = load(st.fills_not_stored);
  s.open_connections = shared.connections.load(std::memory_order_relaxed);
  for (std::size_t c = 0; c < kLatencyClasses; ++c) s.latency[c] = m.latency[c].snapshot();
}

}  // namespace

double RatioFigures::hit() const { return ratio(window.delta.local_hits, window.delta.requests); }
double RatioFigures::total_hit() const {
  return ratio(window.delta.local_hits + window.delta.peer_hits, window.delta.requests);
}
double RatioFigures::byte_hit() const {
  return ratio(window.delta.local_hit_bytes, window.delta.bytes);
}
double RatioFigures::total_byte_hit() const {
  return ratio(window.delta.local_hit_bytes + window.delta.peer_hit_bytes, window.delta.bytes);
}

const char* hash_name(filters::HashId id) {
  switch (id) {
    case filters::HashId::xxh3_128:
      return "xxh3_128";
    case filters::HashId::md5:
      return "md5";
  }
  return "unknown";
}

StatsSnapshot collect_stats(ProxyShared& shared, const RateWindow& window, std::int64_t now) {
  StatsSnapshot s;
  const auto settings = shared.settings.get();
  const config::Config& config = settings->config;
  s.version = SUMCACHE_VERSION;
  s.node_id = config.node.id;
  s.config_digest = config::config_digest(config);
  s.uptime_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - shared.started).count();
  collect_requests(shared, s);
  const WindowTotals totals = window_totals(shared.stats, shared.metrics);
  s.ratios = {RatioFigures{"1m", window.over(now, totals, 60)},
              RatioFigures{"5m", window.over(now, totals, 300)},
              RatioFigures{"since_start", {totals, static_cast<std::int64_t>(s.uptime_seconds)}}};
  s.memory_max_bytes = config.cache.memory.max_bytes;
  s.disk_enabled = config.cache.disk.enabled;
  s.disk_max_bytes = config.cache.disk.enabled ? config.cache.disk.max_bytes : 0;
  if (shared.cache != nullptr) {
    Store& store = shared.cache->store();
    s.store = store.stats();
    s.filter = store.filter_stats();
    s.filter_hash = store.hash_id();
    if (const PeerService* peers = shared.cache->peers()) {
      s.invalidations = peers->invalidation_stats();
      s.membership = peers->membership_stats();
    }
  }
  if (shared.peer_status) s.peers = shared.peer_status();
  if (shared.peer_listener_refusals) s.peer_listener_refusals = shared.peer_listener_refusals();
  return s;
}

}  // namespace sumcache::daemon
