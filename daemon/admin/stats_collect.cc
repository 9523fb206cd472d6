#include "daemon/admin/stats_collect.h"

#include "config/config_json.h"
#include "daemon/cache/cache_service.h"
#include "daemon/peer/peer_service.h"
#include "daemon/session/worker.h"

namespace sumcache::daemon {
namespace {

std::uint64_t load(const std::atomic<std::uint64_t>& c) {
  return c.load(std::memory_order_relaxed);
}

double ratio(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

// One worker's request counters, added into the snapshot's.
void add_worker(const WorkerContext& worker, StatsSnapshot& s,
                std::array<std::uint64_t, kMaxStatusCode + 1>& statuses) {
  const ProxyStats& st = worker.stats;
  const RequestMetrics& m = worker.metrics;
  s.requests += load(st.requests);
  for (std::size_t i = 0; i < kCacheResults; ++i) {
    s.results[i] += load(st.results[i]);
    s.result_bytes[i] += load(m.bytes_by_result[i]);
  }
  for (unsigned code = 0; code <= kMaxStatusCode; ++code) statuses[code] += load(m.by_status[code]);
  s.memory_hits += load(m.memory_hits);
  s.disk_hits += load(m.disk_hits);
  s.bytes_in += load(st.bytes_in);
  s.bytes_out += load(st.bytes_out);
  s.peer_requests += load(st.peer_requests);
  s.peer_false_hits += load(st.peer_false_hits);
  s.peer_copies_purged += load(st.peer_copies_purged);
  s.peer_errors += load(st.peer_errors);
  s.owner_fetches += load(st.owner_fetches);
  s.owner_fallbacks += load(st.owner_fallbacks);
  for (std::size_t i = 0; i < protocol::kPeerAuthReasons; ++i) {
    s.peer_auth_refused[i] += load(st.peer_auth_refused[i]);
  }
  s.peer_object_connections += load(st.peer_object_connections);
  for (std::size_t i = 0; i < kPeerObjectRefusals; ++i) {
    s.peer_object_refused[i] += load(st.peer_object_refused[i]);
  }
  s.http2_connections += load(st.http2.connections);
  s.http2_streams += load(st.http2.streams);
  for (std::size_t i = 0; i < kHttp2Goaways; ++i) s.http2_goaways[i] += load(st.http2.goaways[i]);
  for (std::size_t i = 0; i < kHttp2Resets; ++i) s.http2_resets[i] += load(st.http2.resets[i]);
  s.refused_connections += load(st.refused_connections);
  s.upstream_errors += load(st.upstream_errors);
  s.framing_refused_requests += load(st.framing_refused_requests);
  s.framing_refused_responses += load(st.framing_refused_responses);
  s.upstream_line_too_long += load(st.upstream_line_too_long);
  for (std::size_t i = 0; i < s.refused_destinations.size(); ++i) {
    s.refused_destinations[i] += load(st.refused_destinations[i]);
  }
  s.upstream_truncated += load(st.upstream_truncated);
  s.fills_not_stored += load(st.fills_not_stored);
  s.targeted_fields_invalid += load(st.targeted_fields_invalid);
  for (std::size_t c = 0; c < kLatencyClasses; ++c) s.latency[c].add(m.latency[c].snapshot());
}

void collect_requests(const AdminContext& context, StatsSnapshot& s) {
  std::array<std::uint64_t, kMaxStatusCode + 1> statuses{};
  for (const Worker* worker : context.workers) add_worker(worker->context(), s, statuses);
  for (unsigned code = 0; code <= kMaxStatusCode; ++code) {
    if (statuses[code] != 0) s.statuses.emplace_back(code, statuses[code]);
  }
  s.admin_sessions_closed = context.sessions_closed;
  s.open_connections = context.shared.connections.load(std::memory_order_relaxed);
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

WindowTotals summed_window_totals(const std::vector<Worker*>& workers) {
  WindowTotals sum;
  for (const Worker* worker : workers) {
    const WorkerContext& w = worker->context();
    sum = sum.plus(window_totals(w.stats, w.metrics));
  }
  return sum;
}

StatsSnapshot collect_stats(const AdminContext& context) {
  const ProxyShared& shared = context.shared;
  const RateWindow& window = context.window;
  const std::int64_t now = context.now_seconds();
  StatsSnapshot s;
  const auto settings = shared.settings.get();
  const config::Config& config = settings->config;
  s.version = SUMCACHE_VERSION;
  s.node_id = config.node.id;
  s.config_digest = config::config_digest(config);
  s.uptime_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - shared.started).count();
  collect_requests(context, s);
  const WindowTotals totals = summed_window_totals(context.workers);
  s.ratios = {RatioFigures{"1m", window.over(now, totals, 60)},
              RatioFigures{"5m", window.over(now, totals, 300)},
              RatioFigures{"since_start", {totals, static_cast<std::int64_t>(s.uptime_seconds)}}};
  s.memory_max_bytes = config.cache.memory.max_bytes;
  s.disk_enabled = config.cache.disk.enabled;
  s.disk_max_bytes = config.cache.disk.enabled ? config.cache.disk.max_bytes : 0;
  if (context.cache != nullptr) {
    Store& store = context.cache->store();
    s.store = store.stats();
    s.filter = store.filter_stats();
    s.filter_hash = store.hash_id();
    s.partial_invalid = context.cache->partial_invalid();
    if (const SquidDigestService* digest = context.cache->squid_digest()) {
      s.squid_digest = digest->stats();
    }
  }
  if (const PeerService* peers = context.peers()) {
    s.invalidations = peers->invalidation_stats();
    s.membership = peers->membership_stats();
    s.redis = peers->redis_stats();
    s.icp = peers->icp_totals();
    s.peers = peers->status();
    if (config.cluster.sharing == config::Sharing::summary) {
      s.peer_listener_refusals = peers->listener_refusals();
      s.summary_memory = peers->summary_memory();
    }
    s.peer_listener_accept_failures = peers->listener_accept_failures();
    s.peer_encode_failures = peers->encode_failures();
  }
  return s;
}

}  // namespace sumcache::daemon
