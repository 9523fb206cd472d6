#pragma once
// Summary mode's exchange (docs/peers.md): pushes this node's summary to each
// peer (a full one to a peer that is new, restarted, failed or reported a
// gap; deltas otherwise), receives peers' pushes on the peer listener into the
// peer table and the directory, serves pulls, and pulls a peer's full summary
// when it has none or it expired. It also carries cluster-wide invalidation
// (docs/peers.md): this node's purges to every peer, one batch in flight per
// peer, and peers' batches applied to the store. Everything runs on one io
// thread; purges arrive through ClusterInvalidations, which is thread-safe.
// Peers come and go (docs/peers.md, "Live membership"): each has a lane, made
// by add_lane and ended by remove_lane; a push, pull or send loop still
// running for a removed peer sees its lane removed and touches nothing more.

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "daemon/log/log_limiter.h"
#include "daemon/log/logger.h"
#include "daemon/peer/cluster_invalidations.h"
#include "daemon/peer/peer_table.h"
#include "daemon/peer/redis_bus_stats.h"
#include "daemon/peer/squid_digest_peers.h"
#include "daemon/peer/summary_listener.h"
#include "daemon/peer/token_bucket.h"
#include "daemon/store/store.h"
#include "filters/fingerprint_directory.h"
#include "filters/summary_directory.h"
#include "protocol/invalidation_sequence.h"
#include "protocol/replay_window.h"
#include "protocol/summary_message.h"

namespace sumcache::daemon {

// What the exchange keeps per peer, on the io thread.
struct PeerLane {
  PeerLane(std::shared_ptr<Peer> p, const asio::any_io_executor& executor, TokenBucket rate)
      : peer(std::move(p)), bucket(rate), invalidation_timer(executor) {}
  std::shared_ptr<Peer> peer;
  bool removed = false;
  bool pushing = false;  // a push in flight
  bool pulling = false;  // a pull in flight
  // The listener's side: the summary rate, and the nonces of this peer's
  // channel heads seen within the window (docs/protocol.md, "Channel authentication").
  TokenBucket bucket;
  protocol::ReplayWindow replay;
  // What this node has applied of its invalidations, and the send loop's
  // timer (idle: waiting for a purge, not a backoff).
  protocol::InvalidationSequence sequence;
  asio::steady_timer invalidation_timer;
  bool invalidation_idle = false;
};

class RedisBus;

// A message read from Redis, through the exchange's decode and apply path
// (docs/peers.md, "Redis transport").
struct BusMessage {
  // ahead: of a newer epoch than the member record's (a restart whose record
  // the next heartbeat reads): nothing applied, not a refusal.
  enum class Outcome { applied, gap, refused, not_peer, ahead };
  Outcome outcome = Outcome::refused;
  RedisRefusal reason = RedisRefusal::message_malformed;  // when refused
  std::string why;
  std::uint64_t sequence = 0;  // when applied: the peer's summary is at this sequence now
  bool full = false;
};

class SummaryExchange : public SummaryGate {
 public:
  // Peers' Bloom-filter summaries go to `directory`, their fingerprint
  // summaries to `fingerprints` (docs/peers.md, "Summary kinds").
  SummaryExchange(asio::any_io_executor executor, const config::Config& config, Store& store,
                  Logger& log, PeerTable& table, filters::SummaryDirectory& directory,
                  filters::FingerprintDirectory& fingerprints);
  bool listen(std::string& failed);
  void start();
  void stop();
  RefusalCounts listener_refusals() const { return listener_.refusals(); }
  AcceptCounts listener_accept_failures() const { return listener_.accept_failures(); }
  // Messages of this node's own that the encoder refused (never sent; a bug, or OpenSSL failing).
  std::uint64_t encode_failures() const { return encode_failures_.load(std::memory_order_relaxed); }
  // Fingerprint summaries from peers that the directory refused (over
  // cluster.peer_max_fingerprints, or a delta that does not fit the set held).
  std::uint64_t fingerprints_refused() const {
    return fingerprints_refused_.load(std::memory_order_relaxed);
  }
  // Any thread: numbers purges, holds tombstones and the unproven watermark.
  ClusterInvalidations& invalidations() { return invalidations_; }
  // On the io thread: the send loops waiting for a purge look again.
  void wake_invalidation_senders();
  // On the io thread, after PeerTable::add: starts the peer's exchange (a
  // Squid's: its digest fetches).
  void add_lane(std::shared_ptr<Peer> peer);
  // On the io thread, after PeerTable::remove: stops its loops, drops its
  // summary from the directory and its invalidation state.
  void remove_lane(const Peer& peer);
  // On the io thread: who may connect, and how many at once, for the peers now.
  void set_sources(std::optional<AccessList> sources);
  // Peers down past cluster.peer_grace_ms, each reported once (the io thread).
  void on_grace_over(std::function<void(const Peer&)> handler) { grace_over_ = std::move(handler); }
  std::uint64_t grace_drops() const { return grace_drops_.load(std::memory_order_relaxed); }
  // Discovery: the node id that `address` (on this node's peer port) signs
  // its full summary with; nullopt with `why` when it serves none.
  awaitable<std::optional<std::string>> probe(std::string address, std::string& why);

  // cluster.transport "redis": rounds publish through `bus` (set before
  // start), and no summary is pushed or pulled over HTTP.
  void set_bus(RedisBus* bus) { bus_ = bus; }
  std::uint64_t epoch() const { return epoch_; }
  // A message of peer `node` read from Redis: its tag checked with the
  // peer's secret, its node id `node`'s, its epoch `record_epoch` (its member
  // record's: a lower one is a replay of an earlier run's), then applied as a
  // push would be. want_full: it must be a full summary (a bootstrap).
  BusMessage apply_from_bus(std::string_view node, std::string_view bytes, bool want_full,
                            std::uint64_t record_epoch);
  // Something of peer `node`'s read from Redis was refused before decoding.
  void count_rejected(std::string_view node);

  // SummaryGate: what the peer listener lets in.
  Verdict admit(const SummaryHead& head, const ChannelProof& proof, std::size_t& peer) override;
  std::uint64_t max_filter_bits(std::size_t) const override { return max_filter_bits_; }
  std::uint64_t max_fingerprints(std::size_t) const override { return max_fingerprints_; }
  SummaryResponse handle(const SummaryRequest& request) override;

 private:
  SummaryResponse receive(const SummaryRequest& request);
  SummaryResponse serve_full(const SummaryRequest& request);
  // Applies a decoded message from a peer; returns the HTTP status for the sender.
  SummaryResponse apply(PeerLane& lane, const protocol::SummaryMessage& message);
  // The fingerprint kinds: admitted by the peer's PeerSummary, applied to the
  // fingerprint directory, then committed. Table lock held.
  SummaryResponse apply_fingerprints(Peer& peer, const protocol::SummaryMessage& message);
  // Why a summary with `info` from the lane's peer is refused: its epoch is
  // below the one held (docs/protocol.md, "Receiver state"); nullopt when it is not.
  std::optional<std::string> stale_summary(PeerLane& lane, const protocol::SummaryInfo& info) const;
  // A batch from a peer: applied as its InvalidationSequence says, answered with the ack.
  SummaryResponse receive_invalidations(const SummaryRequest& request);
  void refuse_invalidations(const SummaryRequest& request, const std::string& why);
  // Sends the peer this node's purges, one batch at a time, until acknowledged.
  awaitable<void> invalidation_loop(std::shared_ptr<PeerLane> lane);
  awaitable<void> publish_loop();
  // want_full: make this node's full summary at the new sequence too.
  void publish_round(bool delta_due, SteadyTime now, bool want_full = false);
  // Whether a peer due a push now needs a full summary.
  bool full_wanted(SteadyTime now) const;
  // filter.kind fingerprint: a new mark of the store's table; returns the
  // delta from the last one (null on the first, or when none could be
  // given), and keeps the full summary of the set marked when asked for.
  std::shared_ptr<const std::string> publish_fingerprints(SteadyTime now, bool want_full);
  // This node's full summary at sequence_; null when it cannot be encoded
  // now (a fingerprint set changed since its mark: the next round gives one).
  std::shared_ptr<const std::string> current_full();
  // Peers down past cluster.peer_grace_ms: their summary leaves the directory.
  void drop_past_grace(SteadyTime now);
  void push(const std::shared_ptr<PeerLane>& lane, std::shared_ptr<const std::string> message,
            bool full);
  awaitable<void> push_to(std::shared_ptr<PeerLane> lane,
                          std::shared_ptr<const std::string> message, bool full);
  awaitable<void> pull_from(std::shared_ptr<PeerLane> lane);
  PeerLane* lane_of(std::string_view node_id) const;
  protocol::SummaryInfo info() const;
  std::string etag() const;
  std::optional<std::string> secret_for(std::string_view node_id) const;

  asio::any_io_executor executor_;
  const config::Config& config_;
  Store& store_;
  Logger& log_;
  PeerTable& table_;
  filters::SummaryDirectory& directory_;
  filters::FingerprintDirectory& fingerprints_;
  // cluster.tls: null when disabled. The HMAC tag authenticates senders; TLS
  // adds confidentiality and the listener's identity.
  std::unique_ptr<asio::ssl::context> tls_server_;
  std::unique_ptr<asio::ssl::context> tls_client_;
  SummaryListener listener_;
  asio::steady_timer timer_;
  std::uint64_t epoch_;
  std::uint64_t sequence_ = 0;
  // The bit view as the deltas sent so far describe it: what a peer holds.
  std::optional<filters::BloomFilter> published_;
  // filter.kind fingerprint: deltas name ranks in the set as marked, so a
  // full must be that set exactly (not the table now): the full of
  // full_sequence_, kept until the next round, and the set's size.
  std::shared_ptr<const std::string> full_;
  std::uint64_t full_sequence_ = 0;
  std::uint64_t marked_entries_ = 0;
  SteadyTime last_publish_{};
  std::array<std::shared_ptr<PeerLane>, PeerTable::kSlots> lanes_;  // by slot
  bool started_ = false;
  std::uint64_t max_filter_bits_;
  std::uint64_t max_fingerprints_;  // a peer's fingerprint summary, held here
  LogLimiter reject_log_;
  ClusterInvalidations invalidations_;
  // squid-digest peers: no lane (nothing pushed, pulled or invalidated), a digest fetch loop.
  SquidDigestPeers squid_;
  LogLimiter invalidation_reject_log_;
  LogLimiter invalidation_send_log_;
  LogLimiter grace_log_;
  LogLimiter push_refused_log_;  // "peer X refused our summary", counted in pushes_refused
  LogLimiter pull_reject_log_;   // "pulled summary rejected", counted in messages_rejected
  LogLimiter answer_auth_log_;   // a peer's answer without a valid Sumcache-Channel-Auth
  // Counts (the peer's messages_rejected) and logs an answer that failed its
  // Sumcache-Channel-Auth; `what` names the exchange.
  void answer_refused(Peer& peer, const std::string& what, std::error_code ec);
  LogLimiter fingerprint_log_;  // fingerprint summaries the directory refused
  std::atomic<std::uint64_t> fingerprints_refused_{0};
  std::function<void(const Peer&)> grace_over_;
  std::atomic<std::uint64_t> grace_drops_{0};
  // Counts and logs (once a second) an encoder's refusal of `what`.
  void encode_failed(const std::string& what, std::error_code ec) const;
  mutable std::atomic<std::uint64_t> encode_failures_{0};
  mutable LogLimiter encode_log_;
  bool stopped_ = false;
  RedisBus* bus_ = nullptr;
};

}  // namespace sumcache::daemon
