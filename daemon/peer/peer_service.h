#pragma once
// A node's side of its cluster (docs/peers.md): the peer table, and for the
// sharing mode in config either
//   summary: this node's summary pushed to every peer (full, then deltas once
//            cluster.update_threshold_percent of its keys changed or
//            update_max_interval_ms passed), peers' summaries received on the
//            peer listener into a bit-sliced directory (fingerprint summaries
//            into a fingerprint directory beside it), or pulled when missing;
//   icp:     ICP v2 queries to every peer on each miss (RFC 2186).
// It runs on a thread of its own; workers ask candidates() on each miss and
// report how the peer answered.

#include <array>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "config/config.h"
#include "daemon/log/log_limiter.h"
#include "daemon/log/logger.h"
#include "daemon/net/accept_loop.h"
#include "daemon/net/asio.h"
#include "daemon/net/cidr.h"
#include "daemon/net/destination_policy.h"
#include "daemon/peer/cluster_invalidations.h"
#include "daemon/peer/listener_refusals.h"
#include "daemon/peer/peer_table.h"
#include "daemon/peer/redis_bus_stats.h"
#include "daemon/store/store.h"
#include "filters/fingerprint_directory.h"
#include "filters/summary_directory.h"

namespace sumcache::daemon {

class IcpAgent;
struct IcpPeerCounters;
struct IcpQueryResult;
class SummaryListener;
class SummaryExchange;
class RedisBus;

// Peers to ask, best first: their slots, and the peers themselves, held so
// that one removed meanwhile stays valid (and its slot's next peer is not asked).
struct PeerCandidates {
  std::array<std::uint8_t, filters::SummaryDirectory::kMaxPeers> order{};
  std::array<std::shared_ptr<Peer>, filters::SummaryDirectory::kMaxPeers> peers{};
  std::size_t count = 0;
};

// The answer to a membership call: 201 added, 200 removed, or a 4xx with why.
struct MembershipResult {
  unsigned status = 200;
  std::string reason;
};

enum class PeerOutcome { hit, false_hit, error };

// Whether `config` runs a cluster: summary mode always (peers may join at
// runtime), ICP with peers.
inline bool runs_cluster(const config::Config& config) {
  return config.cluster.sharing == config::Sharing::summary ||
         (config.cluster.sharing == config::Sharing::icp && !config.peers.empty());
}

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
  // The node drains (SIGTERM): ICP answers peers MISS_NOFETCH (docs/icp.md).
  void begin_drain();

  // For a missed key: the peers whose fresh summary claims it (summary), or
  // the peer that answered HIT first (icp), best first by smoothed RTT.
  awaitable<PeerCandidates> candidates(std::string_view key, const filters::Hash128& hash);
  void report(Peer& peer, PeerOutcome outcome, std::chrono::microseconds rtt,
              std::string_view error = {});
  // Any thread: whether `id` is a peer now (object requests' authentication).
  bool is_peer(std::string_view id) const { return table_.find(id).has_value(); }
  const PeerTable& table() const { return table_; }
  // Under cluster.miss_policy "owner" (docs/peers.md, "Miss policy"): the
  // owner of cache key `key` among the live nodes, this one and each eligible
  // peer by its config id (rendezvous_owner.h). The peer, held for the
  // exchange, or null when this node owns the key. Any thread; the one place
  // the live set is read.
  std::shared_ptr<Peer> owner_of(std::string_view key) const;
  // An owner fetch to `peer` that got no usable answer: a failure towards
  // suspect and down, as for a peer fetch. The peer's request counters stay
  // those of summary lookups (their false-hit rate), and its RTT out of it:
  // an owner's answer includes its origin fetch.
  void report_owner_failure(Peer& peer, std::string_view error);
  PeerStatusList status() const;
  // The receiver's memory for peers' summaries: both directories, and the
  // fingerprint summaries the directory refused (summary mode).
  SummaryMemory summary_memory() const;
  RefusalCounts listener_refusals() const;  // summary mode's peer listener
  // icp mode: the ICP agent's counters summed over the peers and every other sender.
  std::optional<IcpPeerCounters> icp_totals() const;
  AcceptCounts listener_accept_failures() const;  // the same listener's failed accepts
  std::uint64_t encode_failures() const;          // own summary or invalidation messages
  // What SIGHUP may change: thresholds, interval, expiry, timeout, weights,
  // and (summary mode) the peers: what changed in the file's list.
  void apply_live(const config::Config& config);
  // Live membership (docs/peers.md): the admin's calls, carried out on the
  // peer thread; the caller resumes on its own executor. Until the next restart, or
  // a reload that changes the same id in the file.
  awaitable<MembershipResult> add_peer(config::PeerConfig peer);
  awaitable<MembershipResult> remove_peer(std::string id);
  // Who may connect to the peer object listener, each time the peers change
  // (called on the peer thread).
  void on_sources(std::function<void(std::optional<AccessList>)> handler) {
    sources_handler_ = std::move(handler);
  }
  // The peers' private listeners, each time the peers change (called on the
  // peer thread): refused as proxy destinations (daemon/peer/peer_listeners.h).
  void on_listeners(std::function<void(PeerListeners)> handler) {
    listeners_handler_ = std::move(handler);
  }
  MembershipStats membership_stats() const;
  // cluster.transport "redis" (docs/peers.md, "Redis transport"): the bus's
  // servers and counters; nullopt with transport "mesh". Any thread.
  std::optional<RedisBusStats> redis_stats() const;
  const std::string& node_id() const { return node_id_; }

  // Cluster-wide invalidation (summary mode; docs/peers.md). Any thread.
  // Sends the purge of cache key `key` to every peer and puts up its
  // tombstone; returns its sequence, 0 when it cannot be sent (icp mode, or a
  // key longer than the format carries).
  std::uint64_t invalidate(std::string_view key) {
    return invalidate(protocol::InvalidationKind::url, key);
  }
  // The same for a tag purge or a key-prefix purge (`kind`).
  std::uint64_t invalidate(protocol::InvalidationKind kind, std::string_view value);
  // A purge of this node's for `key` (of the URL, or of a prefix of it) that
  // some peer has not acknowledged: misses on it skip the peers.
  bool tombstoned(std::string_view key) const;
  // A tag purge of this node's for one of `tags` that some peer has not
  // acknowledged: a peer's copy with such a tag is refused.
  bool tag_tombstoned(const std::vector<std::string>& tags) const;
  bool any_tag_tombstone() const;
  // Stored responses received before this (ms since the Unix epoch; 0: none)
  // are unproven: a peer's purges this node missed may have named them.
  std::int64_t unproven_before_ms() const;
  // Where purge `sequence` has taken effect, once every peer acknowledged it
  // or after cluster.peer_timeout_ms; waits on `executor` (the caller's).
  awaitable<PurgeReach> await_reach(std::uint64_t sequence, asio::any_io_executor executor);
  std::optional<InvalidationStats> invalidation_stats() const;

 private:
  // ICP peers' health (peer_icp.cc, docs/icp.md "Dead peers"): a peer silent
  // through a query's window is down at once; the down ones are probed every
  // kIcpProbeInterval on the peer thread and are up once they answer.
  std::uint64_t icp_down() const;
  void note_icp(std::uint64_t down, const IcpQueryResult& result);
  awaitable<void> icp_probe_loop();
  // On the peer thread.
  MembershipResult add_member(const config::PeerConfig& peer, PeerSource source);
  MembershipResult remove_member(std::string_view id, std::string_view why);
  // Who may reach the peer-only listeners, and which peer listeners the proxy
  // refuses as destinations: both follow each change of peers.
  void refresh_sources();
  awaitable<void> resolve_sources(std::uint64_t generation);
  // cluster.discovery: every interval, the name's addresses; a new one is
  // asked for its node id (its signed summary) and joins; a discovered peer
  // whose address left the name leaves.
  awaitable<void> discovery_loop();
  awaitable<std::optional<std::vector<std::string>>> look_up(std::string& why);
  awaitable<void> probe(std::string address);
  void discovery_failed(const std::string& what);

  config::Config config_;
  std::string node_id_;
  Store& store_;
  Logger& log_;
  PeerTable table_;
  // Read by workers and the admin endpoint; config_ is the io thread's.
  std::atomic<std::chrono::milliseconds> timeout_;
  std::atomic<std::chrono::milliseconds> expiry_;
  filters::SummaryDirectory directory_;
  // Peers sending fingerprint summaries (docs/peers.md, "Summary kinds"):
  // beside the Bloom filters, as a rolling change of filter.kind mixes both.
  filters::FingerprintDirectory fingerprints_;
  // ICP: peers marked down, and the probes' peers that answered or not.
  std::atomic<std::uint64_t> icp_marked_down_{0};
  std::atomic<std::uint64_t> icp_probes_answered_{0};
  std::atomic<std::uint64_t> icp_probes_unanswered_{0};
  LogLimiter icp_down_log_;
  asio::io_context io_{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::unique_ptr<SummaryExchange> exchange_;  // summary mode
  std::unique_ptr<RedisBus> bus_;              // summary mode, transport redis
  std::unique_ptr<IcpAgent> icp_;              // icp mode
  LogLimiter invalidation_log_;                // purges that cannot be sent, tombstones dropped
  std::function<void(std::optional<AccessList>)> sources_handler_;
  std::function<void(PeerListeners)> listeners_handler_;
  std::uint64_t sources_generation_ = 0;  // the peer thread's
  LogLimiter join_refused_log_;
  std::atomic<std::uint64_t> joined_{0};
  std::atomic<std::uint64_t> left_{0};
  std::atomic<std::uint64_t> join_refused_{0};
  // Discovery, on the peer thread: addresses that need no peer of their own
  // (this node's, or another for a peer in the table), and those being probed.
  std::set<std::string> aliases_;
  std::set<std::string> probing_;
  std::atomic<std::uint64_t> discovery_failures_{0};
  LogLimiter discovery_log_;
  std::thread thread_;
};

}  // namespace sumcache::daemon
