#pragma once
// One peer as the admin endpoint shows it: a copy taken from the peer table,
// so readers never hold the table's lock while they format.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sumcache::daemon {

enum class PeerState { up, suspect, down };
const char* to_string(PeerState s);

// How a peer joined (docs/peers.md, "Live membership").
enum class PeerSource { config, admin, discovery, redis };
const char* to_string(PeerSource s);

// A squid-digest peer's Cache Digest as this node holds it (docs/interop.md).
struct SquidDigestStatus {
  std::uint64_t fetches_ok = 0;    // 200 with a usable digest
  std::uint64_t not_modified = 0;  // 304: the digest held is confirmed
  std::uint64_t refused = 0;       // damaged digests refused; the one held stays
  std::uint64_t errors = 0;        // no usable answer (network, status)
  bool held = false;
  std::uint32_t capacity = 0;  // the held digest's header
  std::uint32_t count = 0;
  std::uint32_t mask_bytes = 0;
  unsigned bits_per_entry = 0;
  unsigned used_percent = 0;  // bits set, as Squid rounds
  double age_seconds = 0;     // since its last 200 or 304
  bool expired = false;       // older than cluster.summary_expiry_ms: not used
  std::string last_modified;
  std::int64_t fetched_at_ms = 0;  // wall clock; 0: never
  std::int64_t next_fetch_ms = 0;
};

struct PeerStatus {
  std::string id;
  std::string host;
  std::uint16_t http_port = 0;
  std::uint16_t peer_port = 0;
  PeerSource source = PeerSource::config;
  PeerState state = PeerState::down;
  // The peer's summary as this node holds it; has_summary false: none yet.
  bool has_summary = false;
  std::uint64_t summary_epoch = 0;
  std::uint64_t summary_sequence = 0;
  double summary_age_seconds = 0;
  bool summary_expired = false;
  // "bloom" (m bits, k probes), "fingerprint" (m is the universe, k 1), or
  // "none" (docs/peers.md, "Summary kinds").
  std::string summary_kind = "none";
  std::uint64_t entries = 0;
  std::uint64_t m = 0;
  std::uint32_t k = 0;
  double fill_ratio = 0;     // set bits / m (a Bloom filter)
  double estimated_fpr = 0;  // fill_ratio^k, or 1 - (1 - 1/m)^entries for fingerprints
  // Its share of what this node holds for peers' summaries: a fingerprint
  // set's share of the fingerprint directory (by entries), or a Bloom
  // filter's copy (m / 8) and share of the bit-sliced directory (by m).
  std::uint64_t summary_memory_bytes = 0;
  // Object requests this node sent to the peer after its summary (or ICP) claimed a key.
  std::uint64_t requests_sent = 0;
  std::uint64_t true_hits = 0;   // answered with the object
  std::uint64_t false_hits = 0;  // answered 504: the summary claimed a key the peer lacked
  std::uint64_t request_errors = 0;
  // Summary exchange and ICP, both ways.
  std::uint64_t messages_sent = 0;
  std::uint64_t messages_received = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t messages_rejected = 0;
  std::uint64_t pushes_refused = 0;
  double rtt_ms = 0;  // smoothed (RFC 6298 style), 0 until measured
  std::string last_error;
  // "summary" or "squid-digest"; a Squid's digest, for a squid-digest peer.
  std::string protocol = "summary";
  std::optional<SquidDigestStatus> squid_digest;
};

using PeerStatusList = std::vector<PeerStatus>;

// What this node holds for its peers' summaries (summary mode), for /peers and /metrics.
struct SummaryMemory {
  std::uint64_t bloom_directory_bytes = 0;        // the bit-sliced words
  std::uint64_t bloom_copies_bytes = 0;           // each Bloom peer's own bits (m / 8)
  std::uint64_t fingerprint_directory_bytes = 0;  // every fingerprint table
  std::uint64_t fingerprint_entries = 0;          // fingerprints held, all peers
  std::uint64_t fingerprints_refused = 0;         // summaries the directory refused
};

// Live membership's counters (docs/peers.md), for /metrics.
struct MembershipStats {
  std::uint64_t joined = 0;              // peers added after start (reload, admin, discovery)
  std::uint64_t left = 0;                // peers removed
  std::uint64_t join_refused = 0;        // adds refused: duplicate, own id, table full, invalid
  std::uint64_t grace_drops = 0;         // peers down past cluster.peer_grace_ms: summary dropped
  std::uint64_t discovery_failures = 0;  // cluster.discovery resolutions that failed
};

}  // namespace sumcache::daemon
