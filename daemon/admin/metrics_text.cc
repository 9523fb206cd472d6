#include "daemon/admin/metrics_text.h"

#include <cctype>
#include <charconv>

#include "daemon/admin/metrics_peers.h"
#include "daemon/admin/metrics_redis.h"
#include "daemon/admin/metrics_tls.h"
#include "daemon/admin/prometheus_writer.h"
#include "daemon/admin/stats_json.h"

namespace sumcache::daemon {
namespace {

using W = PrometheusWriter;

double as_double(std::uint64_t v) { return static_cast<double>(v); }

// Histogram bounds in seconds, fixed notation as Prometheus users expect
// ("0.000512", not "5.12e-04").
std::string le_label(std::uint64_t micros) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, as_double(micros) / 1e6,
                                       std::chars_format::fixed);
  return ec == std::errc{} ? std::string(buffer, end) : "+Inf";
}

void write_requests(W& w, const StatsSnapshot& s) {
  w.family("sumcache_requests_total", "counter", "Client requests by cache result.");
  for (std::size_t i = 0; i < kCacheResults; ++i) {
    const std::string result = result_label(static_cast<CacheResult>(i));
    w.sample("sumcache_requests_total", {{"result", result}}, s.results[i]);
  }
  w.family("sumcache_responses_total", "counter", "Responses sent to clients by status code.");
  for (const auto& [code, n] : s.statuses) {
    w.sample("sumcache_responses_total", {{"code", std::to_string(code)}}, n);
  }
  w.family("sumcache_cache_hits_total", "counter",
           "Requests answered from this node's memory tier, its disk tier, or a peer.");
  w.sample("sumcache_cache_hits_total", {{"tier", "memory"}}, s.memory_hits);
  w.sample("sumcache_cache_hits_total", {{"tier", "disk"}}, s.disk_hits);
  w.sample("sumcache_cache_hits_total", {{"tier", "peer"}}, s.result(CacheResult::peer_hit));
  w.single("sumcache_cache_misses_total", "counter", "Cache lookups fetched from the origin.",
           s.result(CacheResult::miss));
  w.single("sumcache_false_hits_total", "counter",
           "Peer requests a summary claimed that the peer answered 504 (not cached).",
           s.peer_false_hits);
  w.single("sumcache_peer_copies_purged_total", "counter",
           "Peer copies refused while a tag purge of this node's stood and they carried its tag.",
           s.peer_copies_purged);
  w.family("sumcache_revalidations_total", "counter",
           "Stored responses revalidated with the origin, by outcome.");
  w.sample("sumcache_revalidations_total", {{"outcome", "not_modified"}},
           s.result(CacheResult::refresh_hit));
  w.sample("sumcache_revalidations_total", {{"outcome", "modified"}},
           s.result(CacheResult::refresh_miss));
  w.single("sumcache_received_bytes_total", "counter", "Bytes received from clients.", s.bytes_in);
  w.single("sumcache_sent_bytes_total", "counter", "Bytes sent to clients, heads included.",
           s.bytes_out);
}

void write_ratios(W& w, const StatsSnapshot& s) {
  w.family("sumcache_hit_ratio", "gauge",
           "Share of cache lookups (kind=hit, total_hit) or of their bytes (byte_hit, "
           "total_byte_hit) answered from this node (total_: or a peer), per window.");
  for (const auto& r : s.ratios) {
    w.sample("sumcache_hit_ratio", {{"window", r.name}, {"kind", "hit"}}, r.hit());
    w.sample("sumcache_hit_ratio", {{"window", r.name}, {"kind", "total_hit"}}, r.total_hit());
    w.sample("sumcache_hit_ratio", {{"window", r.name}, {"kind", "byte_hit"}}, r.byte_hit());
    w.sample("sumcache_hit_ratio", {{"window", r.name}, {"kind", "total_byte_hit"}},
             r.total_byte_hit());
  }
}

void write_latency(W& w, const StatsSnapshot& s) {
  constexpr const char* kName = "sumcache_request_duration_seconds";
  w.family(kName, "histogram",
           "Time from a request's first byte to its response's last, by result class.");
  for (std::size_t c = 0; c < kLatencyClasses; ++c) {
    const std::string result = to_string(static_cast<LatencyClass>(c));
    const HistogramSnapshot& h = s.latency[c];
    // One bound per power of two of microseconds: a subset of the buckets, so exact.
    for (unsigned octave = kHistogramMinOctave; octave <= kHistogramMaxOctave; ++octave) {
      const std::uint64_t bound = std::uint64_t{1} << octave;
      w.sample("sumcache_request_duration_seconds_bucket",
               {{"result", result}, {"le", le_label(bound)}}, h.count_at_most(bound));
    }
    w.sample("sumcache_request_duration_seconds_bucket", {{"result", result}, {"le", "+Inf"}},
             h.count);
    w.sample("sumcache_request_duration_seconds_sum", {{"result", result}},
             as_double(h.sum_micros) / 1e6);
    w.sample("sumcache_request_duration_seconds_count", {{"result", result}}, h.count);
  }
}

void write_store(W& w, const StatsSnapshot& s) {
  const StoreStats& st = s.store;
  w.single("sumcache_store_keys", "gauge", "Distinct primary keys (URLs) in the store.", st.keys);
  w.family("sumcache_store_objects", "gauge", "Stored responses (variants) per tier.");
  w.sample("sumcache_store_objects", {{"tier", "memory"}}, st.memory_objects);
  w.sample("sumcache_store_objects", {{"tier", "disk"}}, st.disk_objects);
  w.family("sumcache_store_bytes", "gauge", "Bytes held per tier.");
  w.sample("sumcache_store_bytes", {{"tier", "memory"}}, st.memory_bytes);
  w.sample("sumcache_store_bytes", {{"tier", "disk"}}, st.disk_bytes);
  w.family("sumcache_store_max_bytes", "gauge", "Configured budget per tier (0: tier disabled).");
  w.sample("sumcache_store_max_bytes", {{"tier", "memory"}}, s.memory_max_bytes);
  w.sample("sumcache_store_max_bytes", {{"tier", "disk"}}, s.disk_max_bytes);
  w.single("sumcache_store_disk_write_errors_total", "counter",
           "Disk tier writes that failed (disk full, I/O error): the object stayed memory-only.",
           st.disk_write_errors);
  w.single("sumcache_store_disk_fills_total", "counter",
           "Bodies larger than the memory tier stored on disk only as they streamed.",
           st.disk_fills);
  w.single("sumcache_store_disk_fill_errors_total", "counter",
           "Such fills that the disk failed (write error, timeout): not stored.",
           st.disk_fill_errors);
  w.single("sumcache_store_disk_stream_errors_total", "counter",
           "Disk hits cut short after their head was sent (read error, damaged file, timeout).",
           st.disk_stream_errors);
  w.family("sumcache_store_evictions_total", "counter", "Objects evicted to stay in budget.");
  w.sample("sumcache_store_evictions_total", {{"tier", "memory"}}, st.memory_evictions);
  w.sample("sumcache_store_evictions_total", {{"tier", "disk"}}, st.disk_evictions);
  w.single("sumcache_store_variants_evicted_total", "counter",
           "Variants evicted because their URL held cache.max_variants_per_key.",
           st.variants_evicted);
  w.single("sumcache_store_tag_entries", "gauge",
           "(tag, object) pairs in the tag index (cache.tag_index_max_entries bounds them).",
           st.tag_pairs);
  w.family("sumcache_store_tag_refusals_total", "counter",
           "Tags over a bound: objects not stored for their tags (more than "
           "cache.max_tags_per_object, or the tag index full), and tags too long to index.");
  w.sample("sumcache_store_tag_refusals_total", {{"reason", "object"}}, st.objects_refused_tags);
  w.sample("sumcache_store_tag_refusals_total", {{"reason", "tag_too_long"}}, st.tags_too_long);
}

void write_connections(W& w, const StatsSnapshot& s) {
  w.single("sumcache_connections_open", "gauge", "Client connections open now.",
           std::uint64_t{s.open_connections});
  w.single("sumcache_connections_refused_total", "counter",
           "Client connections refused at limits.max_connections.", s.refused_connections);
  w.single("sumcache_upstream_errors_total", "counter",
           "Upstream exchanges that failed (connect, TLS, timeout, malformed response).",
           s.upstream_errors);
  w.family("sumcache_framing_refused_total", "counter",
           "Messages refused for their framing (RFC 9112 section 6): requests answered 400, 501 "
           "or 505, upstream responses answered 502.");
  w.sample("sumcache_framing_refused_total", {{"message", "request"}}, s.framing_refused_requests);
  w.sample("sumcache_framing_refused_total", {{"message", "response"}},
           s.framing_refused_responses);
  w.single("sumcache_upstream_line_too_long_total", "counter",
           "Upstream responses ended for a chunk line or trailer section longer than "
           "limits.max_header_bytes + 256 KiB.",
           s.upstream_line_too_long);
  w.family("sumcache_upstream_refused_destinations_total", "counter",
           "Upstream connects refused before connecting: this node's own listener, "
           "access.deny_destinations, or a peer's peer, object, admin or ICP port.");
  w.sample("sumcache_upstream_refused_destinations_total", {{"reason", "own_listener"}},
           s.refused_destinations[0]);
  w.sample("sumcache_upstream_refused_destinations_total", {{"reason", "denied"}},
           s.refused_destinations[1]);
  w.sample("sumcache_upstream_refused_destinations_total", {{"reason", "peer_listener"}},
           s.refused_destinations[2]);
  w.single("sumcache_admin_sessions_closed_total", "counter",
           "Idle admin connections closed to admit a new one at the session cap.",
           s.admin_sessions_closed);
  w.family("sumcache_accept_failures_total", "counter",
           "Failed accepts per listener: reason resources (out of descriptors or memory: the "
           "listener paused, up to 1 s, before the next), connection (that connection's own "
           "failure: the next accepted at once), other (paused as for resources).");
  const std::pair<const char*, const AcceptCounts*> listeners[] = {
      {"proxy", &s.proxy_accept_failures},
      {"peer_objects", &s.peer_object_accept_failures},
      {"admin", &s.admin_accept_failures},
      {"peer", &s.peer_listener_accept_failures}};
  for (const auto& [listener, counts] : listeners) {
    for (std::size_t i = 0; i < kAcceptFailureKinds; ++i) {
      w.sample("sumcache_accept_failures_total",
               {{"listener", listener}, {"reason", to_string(static_cast<AcceptFailure>(i))}},
               (*counts)[i]);
    }
  }
  w.single("sumcache_peer_encode_failures_total", "counter",
           "Summary and invalidation messages of this node that could not be encoded (a "
           "precondition broken, or signing failed): not sent.",
           s.peer_encode_failures);
  w.single("sumcache_upstream_truncated_total", "counter",
           "Response bodies upstream closed or stalled on mid-way; the client saw the cut.",
           s.upstream_truncated);
  w.single("sumcache_cache_fills_not_stored_total", "counter",
           "Responses fetched to fill the cache that the store refused (over "
           "cache.max_object_bytes with their head, over a tag bound).",
           s.fills_not_stored);
  w.single("sumcache_targeted_fields_invalid_total", "counter",
           "Responses whose targeted cache-control field (cache.targeted_fields) was not a valid "
           "Dictionary or had a directive of the wrong type: ignored, the next field or "
           "Cache-Control applied (RFC 9213).",
           s.targeted_fields_invalid);
  w.single("sumcache_cache_partial_invalid_total", "counter",
           "206 responses from upstream with a Content-Range missing, malformed or not "
           "matching their body (RFC 9110 section 14.4): relayed, not stored.",
           s.partial_invalid);
  w.single("sumcache_upstream_idle_connections", "gauge",
           "Keep-alive upstream connections waiting in the pools.", s.upstream.idle);
  w.single("sumcache_upstream_connects_total", "counter", "Upstream connections opened.",
           s.upstream.connects);
  w.single("sumcache_upstream_connect_failures_total", "counter",
           "Upstream connection attempts that failed.", s.upstream.connect_failures);
  w.single("sumcache_upstream_reuses_total", "counter",
           "Upstream exchanges on a pooled connection.", s.upstream.reuses);
  w.single("sumcache_upstream_idle_closed_total", "counter",
           "Pooled upstream connections found closed by the origin while idle.",
           s.upstream.idle_closed);
  w.single("sumcache_upstream_stray_discarded_total", "counter",
           "Upstream connections closed for bytes the origin sent unasked.",
           s.upstream.stray_discarded);
  w.single("sumcache_upstream_fresh_retries_total", "counter",
           "Requests sent again on a new connection after a reused one failed.",
           s.upstream.fresh_retries);
}

void write_peer_auth(W& w, const StatsSnapshot& s) {
  w.family("sumcache_peer_auth_refused_total", "counter",
           "Requests on the proxy port refused as peer requests that did not verify, by reason.");
  for (std::size_t i = 0; i < protocol::kPeerAuthReasons; ++i) {
    const auto reason = static_cast<protocol::PeerAuthErrc>(i + 1);
    w.sample("sumcache_peer_auth_refused_total", {{"reason", protocol::label(reason)}},
             s.peer_auth_refused[i]);
  }
  w.single("sumcache_owner_fetches_total", "counter",
           "Misses sent to the key's owner (cluster.miss_policy owner).", s.owner_fetches);
  w.single("sumcache_owner_fallbacks_total", "counter",
           "Owner fetches that failed or timed out and went to the origin.", s.owner_fallbacks);
  w.single("sumcache_peer_object_connections_total", "counter",
           "Connections to the peer object listener (cluster.tls) that completed the handshake.",
           s.peer_object_connections);
  w.family("sumcache_peer_object_refused_total", "counter",
           "Connections or requests the peer object listener refused, by reason.");
  for (std::size_t i = 0; i < kPeerObjectRefusals; ++i) {
    w.sample("sumcache_peer_object_refused_total",
             {{"reason", to_string(static_cast<PeerObjectRefusal>(i))}}, s.peer_object_refused[i]);
  }
  w.single("sumcache_http2_connections_total", "counter", "Client connections served as HTTP/2.",
           s.http2_connections);
  w.single("sumcache_http2_streams_total", "counter", "Requests received on HTTP/2 streams.",
           s.http2_streams);
  w.family("sumcache_http2_goaways_total", "counter",
           "HTTP/2 connections this node ended with GOAWAY, by reason (docs/http2.md).");
  for (std::size_t i = 0; i < kHttp2Goaways; ++i) {
    w.sample("sumcache_http2_goaways_total",
             {{"reason", to_string(static_cast<Http2Goaway>(i))}}, s.http2_goaways[i]);
  }
  w.family("sumcache_http2_stream_resets_total", "counter",
           "HTTP/2 streams this node reset, by reason (docs/http2.md).");
  for (std::size_t i = 0; i < kHttp2Resets; ++i) {
    w.sample("sumcache_http2_stream_resets_total",
             {{"reason", to_string(static_cast<Http2Reset>(i))}}, s.http2_resets[i]);
  }
}

void write_filter(W& w, const StatsSnapshot& s) {
  const FilterStats& f = s.filter;
  const FilterFigures fig = filter_figures(f);
  auto gauge = [&w](std::string_view name, std::string_view help, double value) {
    w.family(name, "gauge", help);
    w.sample(name, {}, value);
  };
  w.family("sumcache_filter_kind", "gauge",
           "1 for the kind of summary this node keeps (filter.kind).");
  w.sample("sumcache_filter_kind", {{"kind", "counting-bloom"}}, f.fingerprint ? 0.0 : 1.0);
  w.sample("sumcache_filter_kind", {{"kind", "fingerprint"}}, f.fingerprint ? 1.0 : 0.0);
  gauge("sumcache_filter_universe",
        "Fingerprint universe U (filter.kind fingerprint; 0 for the counting filter).",
        f.fingerprint ? as_double(f.m) : 0.0);
  gauge("sumcache_filter_counters", "Counters (m) of the local counting Bloom filter.",
        f.fingerprint ? 0.0 : as_double(f.m));
  gauge("sumcache_filter_hashes", "Hash probes per key (k).", f.k);
  gauge("sumcache_filter_entries", "Keys counted in the filter.", as_double(f.entries));
  gauge("sumcache_filter_nonzero_counters", "Counters above zero: the summary's set bits.",
        as_double(f.nonzero));
  gauge("sumcache_filter_fill_ratio", "Set bits / m.", fig.fill_ratio);
  gauge("sumcache_filter_estimated_fpr", "False positive rate from the fill: fill^k.",
        fig.estimated_fpr);
  gauge("sumcache_filter_estimated_cardinality", "Keys estimated from the fill (Swamidass-Baldi).",
        fig.estimated_cardinality);
  gauge("sumcache_filter_saturated_counters", "Counters stuck at their 4-bit maximum.",
        as_double(f.saturated));
  gauge("sumcache_filter_pending_changes", "Bit flips not yet published to peers.",
        as_double(f.pending_changes));
  gauge("sumcache_filter_memory_bytes",
        "Bytes of the structure: counters, or the fingerprint table with its change log.",
        as_double(fig.memory_bytes));
  w.single("sumcache_filter_refused_removes_total", "counter",
           "Removes the filter refused (a key never added): each one a bug, logged.",
           f.refused_removes);
}

// This node's Squid digest (docs/interop.md), when cluster.squid_digest is on.
void write_squid_digest(W& w, const SquidDigestStats& d) {
  auto gauge = [&w](std::string_view name, std::string_view help, double value) {
    w.family(name, "gauge", help);
    w.sample(name, {}, value);
  };
  w.single("sumcache_squid_digest_builds_total", "counter",
           "Squid digests built from the store's keys.", d.builds);
  w.single("sumcache_squid_digest_rebuilds_requested_total", "counter",
           "Rebuilds asked for on the admin endpoint (POST /squid-digest).", d.requested);
  w.single("sumcache_squid_digest_build_overruns_total", "counter",
           "Digest builds that took longer than cluster.squid_digest.rebuild_interval_ms: logged.",
           d.overruns);
  w.single("sumcache_squid_digest_build_seconds_total", "counter",
           "Seconds spent building Squid digests.", d.build_seconds_total);
  gauge("sumcache_squid_digest_last_build_seconds", "How long the last digest build took.",
        d.last_build_seconds);
  w.family("sumcache_squid_digest_requests_total", "counter",
           "Requests for this node's Squid digest, by answer: 200 served, 304 not modified, "
           "405 not GET or HEAD, 503 before the first build (logged).");
  w.sample("sumcache_squid_digest_requests_total", {{"status", "200"}}, d.served);
  w.sample("sumcache_squid_digest_requests_total", {{"status", "304"}}, d.not_modified);
  w.sample("sumcache_squid_digest_requests_total", {{"status", "405"}}, d.refused);
  w.sample("sumcache_squid_digest_requests_total", {{"status", "503"}}, d.unavailable);
  gauge("sumcache_squid_digest_entries", "Keys in the digest served now.", d.entries);
  gauge("sumcache_squid_digest_capacity", "Entries the digest served now is sized for.",
        d.capacity);
  gauge("sumcache_squid_digest_bytes", "Bytes of the digest served now: header and mask.",
        as_double(d.bytes));
  gauge("sumcache_squid_digest_used_ratio", "Share of the digest's mask bits set.",
        d.used_percent / 100.0);
  gauge("sumcache_squid_digest_last_modified_seconds",
        "Unix time the digest served now was built (its Last-Modified).",
        static_cast<double>(d.last_modified));
  gauge("sumcache_squid_digest_expires_seconds",
        "Unix time of the next rebuild (the digest's Expires).", static_cast<double>(d.expires));
}

// Cluster-wide invalidation (docs/peers.md), summary mode only.
void write_invalidations(W& w, const InvalidationStats& inv) {
  auto counter = [&w](std::string_view name, std::string_view help, std::uint64_t value) {
    w.family(name, "counter", help);
    w.sample(name, {}, value);
  };
  counter("sumcache_invalidations_sent_total",
          "Purges this node posted to peers, one per peer, resends included.", inv.sent);
  counter("sumcache_invalidations_received_total", "Peers' purges applied here.", inv.received);
  counter("sumcache_invalidations_acked_total",
          "This node's purges acknowledged by peers, one per peer.", inv.acked);
  counter("sumcache_invalidations_refused_total",
          "Invalidation batches and acks refused (decode, signer, sequence state).", inv.refused);
  counter("sumcache_invalidation_tombstones_dropped_total",
          "Purge tombstones dropped at their cap before every peer acknowledged them.",
          inv.tombstones_dropped);
  w.family("sumcache_invalidations_pending", "gauge",
           "This node's purges not yet acknowledged, per peer.");
  for (const auto& p : inv.peers)
    w.sample("sumcache_invalidations_pending", {{"peer", p.id}}, p.pending);
  w.single("sumcache_invalidation_tombstones", "gauge",
           "Keys purged here that some peer has not acknowledged: misses skip the peers.",
           inv.tombstones);
  w.family("sumcache_invalidation_unproven_before_seconds", "gauge",
           "Objects stored before this Unix time revalidate before use (0: none).");
  w.sample("sumcache_invalidation_unproven_before_seconds", {},
           static_cast<double>(inv.unproven_before_ms) / 1000.0);
}

// Live membership (docs/peers.md).
void write_membership(W& w, const MembershipStats& m) {
  auto counter = [&w](std::string_view name, std::string_view help, std::uint64_t value) {
    w.family(name, "counter", help);
    w.sample(name, {}, value);
  };
  counter("sumcache_peers_joined_total", "Peers added after start: reload, admin call, discovery.",
          m.joined);
  counter("sumcache_peers_left_total", "Peers removed after start.", m.left);
  counter("sumcache_peer_joins_refused_total",
          "Peers not added: invalid, duplicate, own id, or the table full (64).", m.join_refused);
  counter("sumcache_peer_grace_drops_total",
          "Peers down past cluster.peer_grace_ms: their summary left the directory.",
          m.grace_drops);
  counter("sumcache_discovery_failures_total",
          "cluster.discovery lookups that failed or timed out (the peers stay as they were).",
          m.discovery_failures);
}

// ICP (docs/icp.md): both directions, peers and strangers together. A Squid stops
// asking a peer that answers DENIED to over 95% of 100+ queries, so denied_sent
// rising means a Squid lists this node but this node does not list it.
void write_icp(W& w, const IcpPeerCounters& c) {
  w.family("sumcache_icp_queries_total", "counter",
           "ICP queries: sent to peers on local misses, received from peers and others.");
  w.sample("sumcache_icp_queries_total", {{"direction", "sent"}}, c.queries_sent);
  w.sample("sumcache_icp_queries_total", {{"direction", "received"}}, c.queries_received);
  w.family("sumcache_icp_replies_total", "counter",
           "ICP replies counted toward a query (received) and answers sent, by opcode.");
  w.sample("sumcache_icp_replies_total", {{"direction", "received"}, {"opcode", "hit"}},
           c.hits_received);
  w.sample("sumcache_icp_replies_total", {{"direction", "received"}, {"opcode", "miss"}},
           c.misses_received);
  w.sample("sumcache_icp_replies_total", {{"direction", "received"}, {"opcode", "denied"}},
           c.denied_received);
  w.sample("sumcache_icp_replies_total", {{"direction", "sent"}, {"opcode", "hit"}}, c.hits_sent);
  w.sample("sumcache_icp_replies_total", {{"direction", "sent"}, {"opcode", "miss"}},
           c.misses_sent);
  w.sample("sumcache_icp_replies_total", {{"direction", "sent"}, {"opcode", "denied"}},
           c.denied_sent);
  w.single("sumcache_icp_unanswered_total", "counter", "Peers silent until an ICP query's timeout.",
           c.unanswered);
  w.single("sumcache_icp_late_replies_total", "counter",
           "ICP replies after their query completed, or for no query of ours.", c.late_replies);
  w.single("sumcache_icp_rejected_total", "counter",
           "ICP datagrams dropped: malformed, a reply not echoing its URL, or from a stranger.",
           c.rejected);
  w.single("sumcache_icp_peers_marked_down_total", "counter",
           "ICP peers marked down: silent through a query's whole peer_timeout_ms.", c.marked_down);
  w.family("sumcache_icp_probes_total", "counter",
           "Down ICP peers probed (one query a second), by whether they answered.");
  w.sample("sumcache_icp_probes_total", {{"result", "answered"}}, c.probes_answered);
  w.sample("sumcache_icp_probes_total", {{"result", "unanswered"}}, c.probes_unanswered);
}

}  // namespace

std::string result_label(CacheResult r) {
  std::string label = to_string(r);
  for (char& c : label) {
    c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return label;
}

std::string metrics_text(const StatsSnapshot& s) {
  W w;
  w.family("sumcache_build_info", "gauge", "Always 1: the version and node id as labels.");
  w.sample("sumcache_build_info", {{"version", s.version}, {"node", s.node_id}}, std::uint64_t{1});
  w.single("sumcache_uptime_seconds", "gauge", "Seconds since the daemon started.",
           s.uptime_seconds);
  write_requests(w, s);
  write_ratios(w, s);
  write_latency(w, s);
  write_store(w, s);
  write_connections(w, s);
  write_peer_auth(w, s);
  write_filter(w, s);
  write_peer_metrics(w, s.peers);
  if (s.summary_memory) write_summary_memory_metrics(w, *s.summary_memory);
  if (s.peer_listener_refusals) write_peer_listener_metrics(w, *s.peer_listener_refusals);
  if (s.invalidations) write_invalidations(w, *s.invalidations);
  if (s.membership) write_membership(w, *s.membership);
  if (s.redis) write_redis_metrics(w, *s.redis);
  if (s.icp) write_icp(w, *s.icp);
  if (s.squid_digest) write_squid_digest(w, *s.squid_digest);
  if (s.tls) write_tls_metrics(w, *s.tls);
  return w.text();
}

}  // namespace sumcache::daemon
