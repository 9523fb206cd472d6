#pragma once
// A node's side of its cluster (docs/peers.md): the peer table, and for the
// sharing mode in config either
//   summary: this node's summary pushed to every peer (full, then deltas once
//            cluster.update_threshold_percent of its keys changed or
//            update_max_interval_ms passed), peers' summaries received on the
//            peer listener into a bit-sliced directory, or pulled when missing;
//   icp:     ICP v2 queries to every peer on each miss (RFC 2186).
// It runs on a thread of its own; workers ask candidates() on each miss and
// report how the peer answered.

#include <array>
#include <memory>
#include <string>
#include <thread>

#include "config/config.h"
#include "daemon/log/log_limiter.h"
#include "daemon/log/logger.h"
#include "daemon/net/asio.h"
#include "daemon/peer/cluster_invalidations.h"
#include "daemon/peer/listener_refusals.h"
#include "daemon/peer/peer_table.h"
#include "daemon/store/store.h"
#include "filters/summary_directory.h"

namespace sumcache::daemon {

class IcpAgent;
struct IcpPeerCounters;
class SummaryListener;
class SummaryExchange;

// Peers to ask, best first.
struct PeerCandidates {
  std::array<std::uint8_t, filters::SummaryDirectory::kMaxPeers> order{};
  std::size_t count = 0;
};

enum class PeerOutcome { hit, false_hit, error };

class PeerService {
 public:
  PeerService(const config::Config& config, Store& store, Logger& log);
  ~PeerService();
  PeerService(const PeerService&) = delete;
  PeerService& operator=(const PeerService&) = delete;

  // Binds the peer listener (summary) or the ICP socket (icp) and starts the
  // thread; a failure names the address and step, and nothing runs.
  bool start();
  void stop();

  // For a missed key: the peers whose fresh summary claims it (summary), or
  // the peer that answered HIT first (icp), best first by smoothed RTT.
  awaitable<PeerCandidates> candidates(std::string_view key, const filters::Hash128& hash);
  const config::PeerConfig& peer(std::size_t i) const { return table_.at(i).config; }
  void report(std::size_t i, PeerOutcome outcome, std::chrono::microseconds rtt,
              std::string_view error = {});
  // Under cluster.miss_policy "owner" (docs/peers.md, "Miss policy"): the
  // owner of cache key `key` among the live nodes, this one and each eligible
  // peer by its config id (rendezvous_owner.h). The peer's index, or nullopt
  // when this node owns the key. Any thread; the one place the live set is read.
  std::optional<std::size_t> owner_of(std::string_view key) const;
  // An owner fetch to peer i that got no usable answer: a failure towards
  // suspect and down, as for a peer fetch. The peer's request counters stay
  // those of summary lookups (their false-hit rate), and its RTT out of it:
  // an owner's answer includes its origin fetch.
  void report_owner_failure(std::size_t i, std::string_view error);
  PeerStatusList status() const;
  RefusalCounts listener_refusals() const;  // summary mode's peer listener
  // What SIGHUP may change: thresholds, interval, expiry, timeout, weights.
  void apply_live(const config::Config& config);
  const std::string& node_id() const { return node_id_; }

  // Cluster-wide invalidation (summary mode; docs/peers.md). Any thread.
  // Sends the purge of cache key `key` to every peer and puts up its
  // tombstone; returns its sequence, 0 when it cannot be sent (icp mode, or a
  // key longer than the format carries).
  std::uint64_t invalidate(std::string_view key);
  // A purge of this node's for `key` that some peer has not acknowledged:
  // misses on it skip the peers.
  bool tombstoned(std::string_view key) const;
  // Stored responses received before this (ms since the Unix epoch; 0: none)
  // are unproven: a peer's purges this node missed may have named them.
  std::int64_t unproven_before_ms() const;
  // Where purge `sequence` has taken effect, once every peer acknowledged it
  // or after cluster.peer_timeout_ms; waits on `executor` (the caller's).
  awaitable<PurgeReach> await_reach(std::uint64_t sequence, asio::any_io_executor executor);
  std::optional<InvalidationStats> invalidation_stats() const;

 private:
  // ICP has no exchange to learn a peer's health from: every second, a peer
  // that left queries unanswered and answered none fails once (down after
  // three), one that answered is up, and a down one is retried after backoff.
  awaitable<void> icp_health_loop();

  config::Config config_;
  std::string node_id_;
  Store& store_;
  Logger& log_;
  PeerTable table_;
  // Read by workers and the admin endpoint; config_ is the io thread's.
  std::atomic<std::chrono::milliseconds> timeout_;
  std::atomic<std::chrono::milliseconds> expiry_;
  filters::SummaryDirectory directory_;
  // ICP: what each peer had answered at the last health check.
  std::vector<IcpPeerCounters> icp_seen_;
  asio::io_context io_{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::unique_ptr<SummaryExchange> exchange_;  // summary mode
  std::unique_ptr<IcpAgent> icp_;              // icp mode
  LogLimiter invalidation_log_;                // purges that cannot be sent, tombstones dropped
  std::thread thread_;
};

}  // namespace sumcache::daemon
