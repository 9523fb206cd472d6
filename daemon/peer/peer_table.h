#pragma once
// Every configured peer with its health and counters. Workers read it on each
// miss without a lock (atomics); the peer service thread alone changes states,
// summaries and the eligible mask under the table's mutex.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/cluster_config.h"
#include "daemon/peer/peer_status.h"
#include "protocol/peer_summary.h"

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
};

// What the service thread keeps per peer, guarded by PeerTable's mutex.
struct PeerLink {
  PeerState state = PeerState::down;
  unsigned failures = 0;           // in a row: pushes and fetches that got no answer
  SteadyTime retry_at{};           // backoff: no push before this
  bool needs_full = true;          // new, restarted, or reported a gap
  protocol::PeerSummary summary;   // what the peer last told us
  SteadyTime summary_at{};         // when its last message arrived
  std::string last_error;
};

struct Peer {
  config::PeerConfig config;
  unsigned slot = 0;                  // bit in masks and in the summary directory
  std::atomic<std::uint32_t> srtt_us{0};  // smoothed RTT, RFC 6298's alpha = 1/8
  std::atomic<std::uint32_t> weight{1};   // peers[].weight, live
  PeerCounters counters;
  PeerLink link;                      // table mutex
};

class PeerTable {
 public:
  explicit PeerTable(const std::vector<config::PeerConfig>& peers);

  std::size_t size() const { return peers_.size(); }
  Peer& at(std::size_t i) { return *peers_[i]; }
  const Peer& at(std::size_t i) const { return *peers_[i]; }
  std::optional<std::size_t> find(std::string_view id) const;

  // Peers a miss may go to: up or suspect, with a summary younger than the expiry.
  std::uint64_t eligible() const { return eligible_.load(std::memory_order_acquire); }
  // Recomputes eligible() from every link. need_summary: summary mode (ICP needs none).
  void refresh_eligible(SteadyTime now, std::chrono::milliseconds expiry, bool need_summary);

  void record_rtt(std::size_t i, std::chrono::microseconds sample);
  // An exchange with peer i that got no usable answer: suspect, then down after
  // kDownAfter in a row; pushes back off exponentially; the next push is full.
  void record_failure(std::size_t i, std::string error, SteadyTime now);
  void record_success(std::size_t i);
  static constexpr unsigned kDownAfter = 3;

  // Guards every Peer::link; the record_* and refresh_eligible take it themselves.
  std::mutex& mutex() const { return mutex_; }
  PeerStatusList status(SteadyTime now, std::chrono::milliseconds expiry) const;

 private:
  std::vector<std::unique_ptr<Peer>> peers_;
  std::atomic<std::uint64_t> eligible_{0};
  mutable std::mutex mutex_;
};

}  // namespace sumcache::daemon
