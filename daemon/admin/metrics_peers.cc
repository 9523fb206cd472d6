#include "daemon/admin/metrics_peers.h"

#include "daemon/admin/stats_snapshot.h"

namespace sumcache::daemon {
namespace {

using Field = double (*)(const PeerStatus&);

struct PeerFamily {
  const char* name;
  const char* type;
  const char* help;
  Field value;
};

double num(std::uint64_t v) { return static_cast<double>(v); }

// Families with one plain series per peer; state and the two-way counters
// carry a second label and are written apart.
constexpr PeerFamily kFamilies[] = {
    {"sumcache_peer_filter_age_seconds", "gauge", "Age of the peer's summary held here.",
     [](const PeerStatus& p) { return p.summary_age_seconds; }},
    {"sumcache_peer_filter_expired", "gauge", "1 when the summary is too old to use.",
     [](const PeerStatus& p) { return p.summary_expired ? 1.0 : 0.0; }},
    {"sumcache_peer_filter_epoch", "gauge", "The summary's epoch (changes when the peer restarts).",
     [](const PeerStatus& p) { return num(p.summary_epoch); }},
    {"sumcache_peer_filter_sequence", "gauge", "The summary's version within its epoch.",
     [](const PeerStatus& p) { return num(p.summary_sequence); }},
    {"sumcache_peer_filter_entries", "gauge", "Keys the peer says its summary holds.",
     [](const PeerStatus& p) { return num(p.entries); }},
    {"sumcache_peer_filter_size", "gauge",
     "Bits (m) of the peer's summary, or its universe (fingerprint summaries).",
     [](const PeerStatus& p) { return num(p.m); }},
    {"sumcache_peer_filter_fingerprint", "gauge",
     "1 when the peer's summary is a fingerprint set, 0 for a Bloom filter or none.",
     [](const PeerStatus& p) { return p.summary_kind == "fingerprint" ? 1.0 : 0.0; }},
    {"sumcache_peer_filter_memory_bytes", "gauge",
     "The peer summary's share of this node's memory for peers' summaries.",
     [](const PeerStatus& p) { return num(p.summary_memory_bytes); }},
    {"sumcache_peer_filter_hashes", "gauge", "Hash probes per key (k) of the peer's summary.",
     [](const PeerStatus& p) { return num(p.k); }},
    {"sumcache_peer_filter_fill_ratio", "gauge", "Set bits / m of the peer's summary.",
     [](const PeerStatus& p) { return p.fill_ratio; }},
    {"sumcache_peer_filter_estimated_fpr", "gauge", "fill_ratio^k of the peer's summary.",
     [](const PeerStatus& p) { return p.estimated_fpr; }},
    {"sumcache_peer_requests_total", "counter",
     "Object requests sent after a summary claimed a key.",
     [](const PeerStatus& p) { return num(p.requests_sent); }},
    {"sumcache_peer_true_hits_total", "counter", "Peer requests answered with the object.",
     [](const PeerStatus& p) { return num(p.true_hits); }},
    {"sumcache_peer_false_hits_total", "counter", "Peer requests answered 504: a false hit.",
     [](const PeerStatus& p) { return num(p.false_hits); }},
    {"sumcache_peer_request_errors_total", "counter", "Peer requests with no usable answer.",
     [](const PeerStatus& p) { return num(p.request_errors); }},
    {"sumcache_peer_messages_rejected_total", "counter",
     "Summary or ICP messages from the peer that failed checks.",
     [](const PeerStatus& p) { return num(p.messages_rejected); }},
    {"sumcache_peer_pushes_refused_total", "counter",
     "Summaries the peer refused with an error status (not 409 or 429, which ask for a full one).",
     [](const PeerStatus& p) { return num(p.pushes_refused); }},
    {"sumcache_peer_rtt_seconds", "gauge", "Smoothed round-trip time to the peer (0: unmeasured).",
     [](const PeerStatus& p) { return p.rtt_ms / 1000.0; }},
};

void write_two_way(PrometheusWriter& w, const PeerStatusList& peers, const char* name,
                   const char* help, std::uint64_t PeerStatus::*sent,
                   std::uint64_t PeerStatus::*received) {
  w.family(name, "counter", help);
  for (const auto& p : peers) {
    w.sample(name, {{"peer", p.id}, {"direction", "sent"}}, p.*sent);
    w.sample(name, {{"peer", p.id}, {"direction", "received"}}, p.*received);
  }
}

}  // namespace

void write_summary_memory_metrics(PrometheusWriter& w, const SummaryMemory& m) {
  auto gauge = [&w](const char* name, const char* help, std::uint64_t value) {
    w.family(name, "gauge", help);
    w.sample(name, {}, num(value));
  };
  gauge("sumcache_peer_directory_bloom_bytes", "Bit-sliced directory words for Bloom summaries.",
        m.bloom_directory_bytes);
  gauge("sumcache_peer_directory_bloom_copies_bytes",
        "Each Bloom peer's own copy of its bits (m / 8), summed.", m.bloom_copies_bytes);
  gauge("sumcache_peer_directory_fingerprint_bytes",
        "Fingerprint directory tables, every peer's fingerprint summary.",
        m.fingerprint_directory_bytes);
  gauge("sumcache_peer_directory_fingerprints", "Fingerprints held for peers, all peers.",
        m.fingerprint_entries);
  w.single("sumcache_peer_fingerprints_refused_total", "counter",
           "Fingerprint summaries the directory refused: over cluster.peer_max_fingerprints, or "
           "a delta that does not fit the set held (a full one is asked for).",
           m.fingerprints_refused);
}

void write_peer_listener_metrics(PrometheusWriter& w, const RefusalCounts& refusals) {
  constexpr const char* kName = "sumcache_peer_listener_refused_total";
  w.family(
      kName, "counter",
      "Connections and requests the peer listener refused before reading a summary, by reason.");
  for (std::size_t i = 0; i < kRefusalKinds; ++i) {
    w.sample(kName, {{"reason", to_string(static_cast<Refusal>(i))}}, refusals[i]);
  }
}

void write_peer_metrics(PrometheusWriter& w, const PeerStatusList& peers) {
  w.family("sumcache_peer_state", "gauge", "1 for the peer's current state (up, suspect, down).");
  for (const auto& p : peers) {
    for (PeerState state : {PeerState::up, PeerState::suspect, PeerState::down}) {
      w.sample("sumcache_peer_state", {{"peer", p.id}, {"state", to_string(state)}},
               std::uint64_t{p.state == state});
    }
  }
  for (const PeerFamily& f : kFamilies) {
    w.family(f.name, f.type, f.help);
    for (const auto& p : peers) w.sample(f.name, {{"peer", p.id}}, f.value(p));
  }
  write_two_way(w, peers, "sumcache_peer_messages_total",
                "Summary and ICP messages exchanged with the peer.", &PeerStatus::messages_sent,
                &PeerStatus::messages_received);
  write_two_way(w, peers, "sumcache_peer_bytes_total",
                "Bytes of summary and ICP messages exchanged with the peer.",
                &PeerStatus::bytes_sent, &PeerStatus::bytes_received);
  // Squid peers' digest fetches (docs/interop.md), by result; only squid-digest peers.
  constexpr const char* kDigest = "sumcache_peer_squid_digest_fetches_total";
  w.family(kDigest, "counter",
           "Cache Digest fetches from a Squid peer, by result (ok, not_modified, refused: "
           "damaged and dropped, error: no usable answer).");
  for (const auto& p : peers) {
    if (!p.squid_digest) continue;
    const SquidDigestStatus& d = *p.squid_digest;
    w.sample(kDigest, {{"peer", p.id}, {"result", "ok"}}, d.fetches_ok);
    w.sample(kDigest, {{"peer", p.id}, {"result", "not_modified"}}, d.not_modified);
    w.sample(kDigest, {{"peer", p.id}, {"result", "refused"}}, d.refused);
    w.sample(kDigest, {{"peer", p.id}, {"result", "error"}}, d.errors);
  }
}

}  // namespace sumcache::daemon
