// CacheService::fetch_from_peers: Summary Cache's remote lookup. The peers
// whose summaries claim the key are asked in turn with only-if-cached
// (RFC 9111 §5.2.1.7): a 504 is a false hit (the summary's false positive, or
// the object left the peer since its last update), counted, and the next peer
// or the origin follows. With a cluster secret every request carries
// Sumcache-Peer-Auth (docs/protocol.md), which the peer checks before its store;
// with cluster.tls it travels over TLS to the peer's object listener. A key
// this node purged is not asked of peers until every peer acknowledged the purge.
// A Squid peer (docs/interop.md) gets the plain only-if-cached request on its
// http_port, and its X-Cache MISS (TCP_MISS) counts as a false hit like a 504.

#include "daemon/cache/cache_request.h"
#include "daemon/cache/cache_service.h"
#include "daemon/cache/peer_upstream.h"
#include "daemon/exchange/response_relay.h"
#include "daemon/http/peer_answer.h"
#include "daemon/peer/peer_service.h"

namespace sumcache::daemon {

awaitable<std::optional<unsigned>> CacheService::fetch_from_peers(CacheRequest& r) {
  // Purged here and not yet acknowledged by every peer: a peer may still hold
  // the old copy, and it must not come back (docs/peers.md).
  if (peers_->tombstoned(r.route.cache_key)) co_return std::nullopt;
  const PeerCandidates candidates = co_await peers_->candidates(r.route.cache_key, r.hash);
  auto& stats = r.worker.stats;
  const config::LimitsConfig limits =
      peer_limits(r.settings.config, r.settings.config.cluster.peer_timeout_ms);
  for (std::size_t c = 0; c < candidates.count; ++c) {
    // Held for the exchange: a peer removed meanwhile stays valid until it ends.
    Peer& candidate = *candidates.peers[c];
    const config::PeerConfig& peer = candidate.config;
    const bool squid = peer.protocol == config::PeerProtocol::squid_digest;
    UpstreamRequest up{
        peer_origin(r.settings.config, peer),
        {},
        squid ? squid_request_head(r)
              : peer_request_head(r, peers_->node_id(), protocol::PeerAuthScope::store_only),
        false,
        {}};
    stats.peer_requests.fetch_add(1, std::memory_order_relaxed);
    const auto start = std::chrono::steady_clock::now();
    auto [ec, res] = co_await exchange_with_upstream(r.worker, limits, up, nullptr);
    const auto rtt = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - start);
    if (ec) {
      stats.peer_errors.fetch_add(1, std::memory_order_relaxed);
      peers_->report(candidate, PeerOutcome::error, rtt, ec.message());
      r.worker.shared.log.info("peer " + peer.id + " did not answer for " + r.route.cache_key +
                               ": " + ec.message());
      continue;
    }
    const auto& msg = res->parser->get();
    const unsigned status = msg.result_int();
    const PeerAnswer answer = classify_peer_answer(status, last_x_cache(msg));
    if (answer == PeerAnswer::hit && purged_by_tag(*peers_, r.settings.config.cache, msg)) {
      // The peer has not applied a tag purge of ours yet: its copy is the purged one.
      co_await finish_upstream(r.worker, limits, std::move(res));
      stats.peer_copies_purged.fetch_add(1, std::memory_order_relaxed);
      r.worker.shared.log.info("peer " + peer.id + " answered " + r.route.cache_key +
                               " with a copy tagged by a purge it has not acknowledged");
      continue;
    }
    if (answer == PeerAnswer::hit) {
      peers_->report(candidate, PeerOutcome::hit, rtt);
      r.record.hierarchy = {"SIBLING_HIT", peer.id};
      co_return co_await relay_and_store(r, std::move(res), CacheResult::peer_hit,
                                         r.settings.config.cluster.store_peer_hits);
    }
    co_await finish_upstream(r.worker, limits, std::move(res));
    if (answer == PeerAnswer::false_hit) {
      stats.peer_false_hits.fetch_add(1, std::memory_order_relaxed);
      peers_->report(candidate, PeerOutcome::false_hit, rtt);
    } else {
      stats.peer_errors.fetch_add(1, std::memory_order_relaxed);
      peers_->report(candidate, PeerOutcome::error, rtt, "answered " + std::to_string(status));
    }
  }
  co_return std::nullopt;
}

}  // namespace sumcache::daemon
