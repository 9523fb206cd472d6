#pragma once
// The cluster's peers with their health and counters, in up to 64 slots (a
// slot is a bit of the eligible mask and a column of the summary directory).
// Membership changes while workers read (docs/peers.md, "Live membership"):
// each slot holds its Peer through an atomic shared_ptr, so a worker that
// loaded one keeps a valid Peer for as long as it holds it, and reads it
// without a lock. The peer service thread alone adds and removes peers and
// changes states and summaries, under the table's mutex.

#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/cluster_config.h"
#include "daemon/peer/peer_status.h"
#include "filters/summary_directory.h"
#include "protocol/peer_summary.h"
#include "protocol/squid_digest.h"

namespace sumcache::daemon {

using SteadyTime = std::chrono::steady_clock::time_point;
using Counter64 = std::atomic<std::uint64_t>;

struct PeerCounters {
  Counter64 requests_sent{0};
  Counter64 true_hits{0};
  Counter64 false_hits{0};
  Counter64 request_errors{0};
  Counter64 messages_sent{0};
  Counter64 messages_received{0};
  Counter64 bytes_sent{0};
  Counter64 bytes_received{0};
  Counter64 messages_rejected{0};
  Counter64 pushes_refused{0};  // our summaries the peer answered with an error status
  // A Squid peer's digest fetches (docs/interop.md): 200 with a usable digest,
  // 304, a digest refused (damaged; the one held before stays), no usable answer.
  Counter64 digest_fetches_ok{0};
  Counter64 digest_not_modified{0};
  Counter64 digest_refused{0};
  Counter64 digest_errors{0};
};

// What this node holds of a Squid peer's Cache Digest (table mutex).
struct SquidDigestLink {
  bool held = false;
  protocol::SquidDigestHeader header;  // of the digest held
  unsigned used_percent = 0;           // its mask's bits set, as Squid rounds
  std::string last_modified;           // its Last-Modified: the next If-Modified-Since
  std::int64_t fetched_at_ms = 0;      // wall clock of the last fetch answered (200 or 304)
  std::int64_t next_fetch_ms = 0;      // wall clock of the next fetch
};

// What the service thread keeps per peer, guarded by PeerTable's mutex.
struct PeerLink {
  PeerState state = PeerState::down;
  unsigned failures = 0;          // in a row: pushes and fetches that got no answer
  SteadyTime retry_at{};          // backoff: no push before this
  SteadyTime down_since{};        // when it last went down (cluster.peer_grace_ms)
  bool needs_full = true;         // new, restarted, or reported a gap
  protocol::PeerSummary summary;  // what the peer last told us
  SteadyTime summary_at{};        // when its last message arrived (a Squid: its last 200 or 304)
  SquidDigestLink digest;         // a squid-digest peer's
  std::string last_error;
};

struct Peer {
  config::PeerConfig config;  // fixed for the Peer's life: a change is a new Peer
  PeerSource source = PeerSource::config;
  unsigned slot = 0;                      // bit in masks and in the summary directory
  std::atomic<std::uint32_t> srtt_us{0};  // smoothed RTT, RFC 6298's alpha = 1/8
  std::atomic<std::uint32_t> weight{1};   // peers[].weight, live
  PeerCounters counters;
  PeerLink link;  // table mutex
};

class PeerTable {
 public:
  static constexpr std::size_t kSlots = filters::SummaryDirectory::kMaxPeers;

  explicit PeerTable(const std::vector<config::PeerConfig>& peers);

  // Any thread, no lock: the peer in `slot`, or null.
  std::shared_ptr<Peer> get(std::size_t slot) const {
    return slots_[slot].load(std::memory_order_acquire);
  }
  // Slots holding a peer.
  std::uint64_t occupied() const { return occupied_.load(std::memory_order_acquire); }
  std::size_t size() const { return static_cast<std::size_t>(std::popcount(occupied())); }
  std::optional<std::size_t> find(std::string_view id) const;  // its slot
  std::vector<std::shared_ptr<Peer>> peers() const;            // in slot order

  // Membership, on one thread at a time (the peer service's).
  // The peer in the lowest free slot; null when every slot is in use.
  std::shared_ptr<Peer> add(const config::PeerConfig& config, PeerSource source);
  // Takes peer `id` out of its slot and of the eligible mask at once; null when
  // unknown. Its slot stays reserved until release(slot): the caller clears
  // what else it keeps per slot (the summary directory's column) first.
  std::shared_ptr<Peer> remove(std::string_view id);
  void release(std::size_t slot);
  // Whether `peer` is still the one in its slot (caller holds mutex()).
  bool current(const Peer& peer) const { return get(peer.slot).get() == &peer; }

  // Peers a miss may go to: up or suspect, with a summary (a Squid: a digest,
  // fetched or confirmed by a 304) younger than the expiry.
  std::uint64_t eligible() const { return eligible_.load(std::memory_order_acquire); }
  // Recomputes eligible() from every link. need_summary: summary mode (ICP needs none).
  void refresh_eligible(SteadyTime now, std::chrono::milliseconds expiry, bool need_summary);

  static void record_rtt(Peer& peer, std::chrono::microseconds sample);
  // An exchange with `peer` that got no usable answer: suspect, then down after
  // kDownAfter in a row; pushes back off exponentially; the next push is full.
  void record_failure(Peer& peer, std::string error, SteadyTime now);
  // Down at once, out of the eligible mask (ICP: docs/icp.md, "Dead peers");
  // false when it was down already.
  bool mark_down(Peer& peer, std::string error, SteadyTime now);
  // Up; true when it was down.
  bool record_success(Peer& peer);
  static constexpr unsigned kDownAfter = 3;

  // Guards every Peer::link and membership; the record_*, add, remove and
  // refresh_eligible take it themselves.
  std::mutex& mutex() const { return mutex_; }
  PeerStatusList status(SteadyTime now, std::chrono::milliseconds expiry) const;

 private:
  std::array<std::atomic<std::shared_ptr<Peer>>, kSlots> slots_;
  std::atomic<std::uint64_t> occupied_{0};
  std::uint64_t reserved_ = 0;  // occupied, or removed and not yet released (mutex)
  std::atomic<std::uint64_t> eligible_{0};
  mutable std::mutex mutex_;
};

}  // namespace sumcache::daemon
