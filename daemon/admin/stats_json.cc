#include "daemon/admin/stats_json.h"

#include <cmath>

#include "filters/filter_params.h"
#include "filters/fingerprint.h"

namespace sumcache::daemon {
namespace {

using json = nlohmann::ordered_json;

json latency_json(const HistogramSnapshot& h) {
  const double mean =
      h.count == 0 ? 0.0
                   : static_cast<double>(h.sum_micros) / static_cast<double>(h.count) / 1000.0;
  return {{"count", h.count},
          {"p50", h.quantile_micros(0.50) / 1000.0},
          {"p90", h.quantile_micros(0.90) / 1000.0},
          {"p99", h.quantile_micros(0.99) / 1000.0},
          {"mean", mean}};
}

json ratio_json(const RatioFigures& r) {
  return {{"hit", r.hit()},
          {"total_hit", r.total_hit()},
          {"byte_hit", r.byte_hit()},
          {"total_byte_hit", r.total_byte_hit()},
          {"requests", r.window.delta.requests},
          {"seconds", r.window.seconds}};
}

json requests_json(const StatsSnapshot& s) {
  json by_result = json::object();
  for (std::size_t i = 0; i < kCacheResults; ++i) {
    by_result[to_string(static_cast<CacheResult>(i))] = s.results[i];
  }
  json by_status = json::object();
  json errors = json::object();
  for (const auto& [code, n] : s.statuses) {
    by_status[std::to_string(code)] = n;
    if (code >= 400) errors[std::to_string(code)] = n;
  }
  return {{"total", s.requests},
          {"by_result", by_result},
          {"by_status", by_status},
          {"errors_by_status", errors}};
}

json store_json(const StatsSnapshot& s) {
  const StoreStats& st = s.store;
  return {{"keys", st.keys},
          {"objects", st.objects},
          {"variants_evicted", st.variants_evicted},
          {"memory",
           {{"objects", st.memory_objects},
            {"bytes", st.memory_bytes},
            {"max_bytes", s.memory_max_bytes},
            {"evictions", st.memory_evictions}}},
          {"disk",
           {{"enabled", s.disk_enabled},
            {"objects", st.disk_objects},
            {"bytes", st.disk_bytes},
            {"max_bytes", s.disk_max_bytes},
            {"evictions", st.disk_evictions},
            {"writes", st.disk_writes},
            {"write_errors", st.disk_write_errors},
            {"read_errors", st.disk_read_errors},
            {"fills", st.disk_fills},
            {"fill_errors", st.disk_fill_errors},
            {"stream_errors", st.disk_stream_errors},
            {"queued_bytes", st.queued_disk_bytes}}}};
}

// JSON has no infinity: a full filter's cardinality estimate becomes null.
json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

}  // namespace

FilterFigures filter_figures(const FilterStats& f) {
  FilterFigures out;
  out.memory_bytes = f.memory_bytes;
  if (f.m == 0 || f.k == 0) return out;
  if (f.fingerprint) {
    // Exact: the table holds one fingerprint per key (filters/fingerprint.h).
    out.estimated_fpr = filters::fingerprint_fpr(f.entries, f.m);
    out.estimated_cardinality = static_cast<double>(f.entries);
    return out;
  }
  const filters::BloomParams params{f.m, f.k};
  out.fill_ratio = static_cast<double>(f.nonzero) / static_cast<double>(f.m);
  out.estimated_fpr = filters::fpr_from_fill(params, f.nonzero);
  out.estimated_cardinality = filters::estimate_cardinality(params, f.nonzero);
  return out;
}

json stats_json(const StatsSnapshot& s) {
  json latency = json::object();
  for (std::size_t c = 0; c < kLatencyClasses; ++c) {
    latency[to_string(static_cast<LatencyClass>(c))] = latency_json(s.latency[c]);
  }
  json ratios = json::object();
  for (const auto& r : s.ratios) ratios[r.name] = ratio_json(r);
  return {
      {"version", s.version},
      {"node_id", s.node_id},
      {"uptime_seconds", s.uptime_seconds},
      {"config_digest", s.config_digest},
      {"requests", requests_json(s)},
      {"hits",
       {{"memory", s.memory_hits},
        {"disk", s.disk_hits},
        {"peer", s.result(CacheResult::peer_hit)}}},
      {"misses", s.result(CacheResult::miss)},
      {"false_hits", s.peer_false_hits},
      {"revalidations",
       {{"not_modified", s.result(CacheResult::refresh_hit)},
        {"modified", s.result(CacheResult::refresh_miss)}}},
      {"bytes", {{"in", s.bytes_in}, {"out", s.bytes_out}}},
      {"ratios", ratios},
      {"latency_ms", latency},
      {"store", store_json(s)},
      {"connections", {{"open", s.open_connections}, {"refused", s.refused_connections}}},
      {"upstream",
       {{"errors", s.upstream_errors},
        {"truncated", s.upstream_truncated},
        {"idle_connections", s.upstream.idle},
        {"connects", s.upstream.connects},
        {"connect_failures", s.upstream.connect_failures},
        {"reuses", s.upstream.reuses},
        {"idle_closed", s.upstream.idle_closed},
        {"stray_discarded", s.upstream.stray_discarded},
        {"fresh_retries", s.upstream.fresh_retries}}},
      {"peer_requests",
       {{"sent", s.peer_requests}, {"false_hits", s.peer_false_hits}, {"errors", s.peer_errors}}},
      {"owner_fetches", {{"sent", s.owner_fetches}, {"fallbacks", s.owner_fallbacks}}}};
}

namespace {

// A Squid peer's digest as held here (docs/interop.md); times as ms since the Unix epoch.
json squid_digest_json(const SquidDigestStatus& d) {
  return {{"fetches",
           {{"ok", d.fetches_ok},
            {"not_modified", d.not_modified},
            {"refused", d.refused},
            {"errors", d.errors}}},
          {"held", d.held},
          {"capacity", d.capacity},
          {"count", d.count},
          {"mask_bytes", d.mask_bytes},
          {"bits_per_entry", d.bits_per_entry},
          {"bits_set_percent", d.used_percent},
          {"age_seconds", d.age_seconds},
          {"expired", d.expired},
          {"last_modified", d.last_modified},
          {"last_fetch_ms", d.fetched_at_ms},
          {"next_fetch_ms", d.next_fetch_ms}};
}

}  // namespace

json peers_json(const PeerStatusList& peers) {
  json list = json::array();
  for (const PeerStatus& p : peers) {
    const std::uint64_t answered = p.true_hits + p.false_hits;
    list.push_back(
        {{"id", p.id},
         {"host", p.host},
         {"http_port", p.http_port},
         {"peer_port", p.peer_port},
         {"source", to_string(p.source)},
         {"state", to_string(p.state)},
         {"has_summary", p.has_summary},
         {"summary_epoch", p.summary_epoch},
         {"summary_sequence", p.summary_sequence},
         {"summary_age_seconds", p.summary_age_seconds},
         {"summary_expired", p.summary_expired},
         {"summary_kind", p.summary_kind},
         {"entries", p.entries},
         {"summary_memory_bytes", p.summary_memory_bytes},
         {"m", p.m},
         {"k", p.k},
         {"fill_ratio", p.fill_ratio},
         {"estimated_fpr", p.estimated_fpr},
         {"requests_sent", p.requests_sent},
         {"true_hits", p.true_hits},
         {"false_hits", p.false_hits},
         {"measured_false_hit_rate",
          answered == 0 ? 0.0 : static_cast<double>(p.false_hits) / static_cast<double>(answered)},
         {"request_errors", p.request_errors},
         {"messages_sent", p.messages_sent},
         {"messages_received", p.messages_received},
         {"bytes_sent", p.bytes_sent},
         {"bytes_received", p.bytes_received},
         {"messages_rejected", p.messages_rejected},
         {"rtt_ms", p.rtt_ms},
         {"last_error", p.last_error},
         {"protocol", p.protocol}});
    if (p.squid_digest) list.back()["squid_digest"] = squid_digest_json(*p.squid_digest);
  }
  return {{"peers", list}};
}

void add_summary_memory_json(json& peers, const SummaryMemory& m) {
  peers["directory"] = {{"bloom_directory_bytes", m.bloom_directory_bytes},
                        {"bloom_copies_bytes", m.bloom_copies_bytes},
                        {"fingerprint_directory_bytes", m.fingerprint_directory_bytes},
                        {"fingerprint_entries", m.fingerprint_entries},
                        {"fingerprints_refused", m.fingerprints_refused}};
}

void add_invalidations_json(json& peers, const InvalidationStats& stats) {
  for (auto& p : peers["peers"]) {
    for (const InvalidationPeerStatus& i : stats.peers) {
      if (p["id"] != i.id) continue;
      p["invalidations"] = {
          {"sent", i.sent}, {"acked_through", i.acked_through}, {"pending", i.pending}};
    }
  }
}

namespace {

// The Squid-format view derived from the same keys (docs/interop.md); null when off.
json squid_digest_json(const std::optional<SquidDigestStats>& d) {
  if (!d) return nullptr;
  return {{"builds", d->builds},
          {"build_overruns", d->overruns},
          {"rebuilds_requested", d->requested},
          {"last_build_seconds", d->last_build_seconds},
          {"entries", d->entries},
          {"capacity", d->capacity},
          {"bytes", d->bytes},
          {"used_percent", d->used_percent},
          {"last_modified", d->last_modified},
          {"expires", d->expires},
          {"served", d->served},
          {"not_modified", d->not_modified},
          {"refused", d->refused},
          {"unavailable", d->unavailable}};
}

}  // namespace

json filter_json(const StatsSnapshot& s) {
  const FilterStats& f = s.filter;
  const FilterFigures fig = filter_figures(f);
  return {{"kind", f.fingerprint ? "fingerprint" : "counting-bloom"},
          {"universe", f.fingerprint ? f.m : 0},
          {"m", f.m},
          {"k", f.k},
          {"hash", hash_name(s.filter_hash)},
          {"entries", f.entries},
          {"set_bits", f.nonzero},
          {"fill_ratio", fig.fill_ratio},
          {"estimated_fpr", fig.estimated_fpr},
          {"estimated_cardinality", finite_or_null(fig.estimated_cardinality)},
          {"store_objects", s.store.keys},
          {"saturated_counters", f.saturated},
          {"refused_removes", f.refused_removes},
          {"pending_changes", f.pending_changes},
          {"memory_bytes", fig.memory_bytes},
          {"squid_digest", squid_digest_json(s.squid_digest)}};
}

}  // namespace sumcache::daemon
