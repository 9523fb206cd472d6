#pragma once
// Summary mode's exchange (docs/peers.md): pushes this node's summary to each
// peer (a full one to a peer that is new, restarted, failed or reported a
// gap; deltas otherwise), receives peers' pushes on the peer listener into the
// peer table and the directory, serves pulls, and pulls a peer's full summary
// when it has none or it expired. It also carries cluster-wide invalidation
// (docs/peers.md): this node's purges to every peer, one batch in flight per
// peer, and peers' batches applied to the store. Everything runs on one io
// thread; purges arrive through ClusterInvalidations, which is thread-safe.

#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "daemon/log/log_limiter.h"
#include "daemon/log/logger.h"
#include "daemon/peer/cluster_invalidations.h"
#include "daemon/peer/peer_table.h"
#include "daemon/peer/summary_listener.h"
#include "daemon/peer/token_bucket.h"
#include "daemon/store/store.h"
#include "filters/summary_directory.h"
#include "protocol/invalidation_sequence.h"
#include "protocol/summary_message.h"

namespace sumcache::daemon {

class SummaryExchange : public SummaryGate {
 public:
  SummaryExchange(asio::any_io_executor executor, const config::Config& config, Store& store,
                  Logger& log, PeerTable& table, filters::SummaryDirectory& directory);
  bool listen(std::string& failed);
  void start();
  void stop();
  RefusalCounts listener_refusals() const { return listener_.refusals(); }
  // Any thread: numbers purges, holds tombstones and the unproven watermark.
  ClusterInvalidations& invalidations() { return invalidations_; }
  // On the io thread: the send loops waiting for a purge look again.
  void wake_invalidation_senders();

  // SummaryGate: what the peer listener lets in.
  Verdict admit(const SummaryHead& head, std::size_t& peer) override;
  std::uint64_t max_filter_bits(std::size_t) const override { return max_filter_bits_; }
  SummaryResponse handle(const SummaryRequest& request) override;
  void body_done(std::size_t peer, bool invalidations) override {
    (invalidations ? receiving_invalidations_ : receiving_)[peer] = 0;
  }

 private:
  SummaryResponse receive(const SummaryRequest& request);
  SummaryResponse serve_full(const SummaryRequest& request) const;
  // Applies a decoded message from peer i; returns the HTTP status for the sender.
  SummaryResponse apply(std::size_t i, const protocol::SummaryMessage& message);
  // A batch from a peer: applied as its InvalidationSequence says, answered with the ack.
  SummaryResponse receive_invalidations(const SummaryRequest& request);
  void refuse_invalidations(const SummaryRequest& request, const std::string& why);
  // Sends peer i this node's purges, one batch at a time, until acknowledged.
  awaitable<void> invalidation_loop(std::size_t i);
  awaitable<void> publish_loop();
  void publish_round(bool delta_due, SteadyTime now);
  void push(std::size_t i, std::shared_ptr<const std::string> message, bool full);
  awaitable<void> push_to(std::size_t i, std::shared_ptr<const std::string> message, bool full);
  awaitable<void> pull_from(std::size_t i);
  protocol::SummaryInfo info() const;
  std::string etag() const;
  std::optional<std::string> secret_for(std::string_view node_id) const;

  asio::any_io_executor executor_;
  const config::Config& config_;
  Store& store_;
  Logger& log_;
  PeerTable& table_;
  filters::SummaryDirectory& directory_;
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
  SteadyTime last_publish_{};
  std::vector<char> busy_;  // per peer: a push or pull in flight
  // The listener's side, per peer: a body being read, and the summary rate.
  std::vector<char> receiving_;
  std::vector<TokenBucket> buckets_;
  std::uint64_t max_filter_bits_;
  LogLimiter reject_log_;
  ClusterInvalidations invalidations_;
  // Per peer: what this node has applied of its invalidations, a batch being
  // read, and the send loop's timer (idle: waiting for a purge, not a backoff).
  std::vector<protocol::InvalidationSequence> sequences_;
  std::vector<char> receiving_invalidations_;
  std::vector<asio::steady_timer> invalidation_timers_;
  std::vector<char> invalidation_idle_;
  LogLimiter invalidation_reject_log_;
  LogLimiter invalidation_send_log_;
  bool stopped_ = false;
};

}  // namespace sumcache::daemon
