// CacheService::fetch_from_owner: cluster.miss_policy "owner" (docs/peers.md,
// "Miss policy"). A miss no summary claims goes to the key's owner among the
// live nodes, as a verified peer request signed for the owner_fetch scope, so
// that the owner serves it through its own miss path: its inflight table
// turns the cluster's concurrent misses into one origin fetch, and it stores
// the object where the next miss will look. The owner's answer is relayed and
// stored here like a peer hit. An owner that fails or does not answer in time
// leaves the miss to the origin, counted and logged at most once a second.

#include "daemon/cache/cache_request.h"
#include "daemon/cache/cache_service.h"
#include "daemon/cache/peer_upstream.h"
#include "daemon/exchange/response_relay.h"
#include "daemon/peer/peer_service.h"

namespace sumcache::daemon {

namespace {

// The owner fetches from the origin before it answers: its answer may take
// what an origin's first byte may take, plus the hop's cluster.peer_timeout_ms.
std::chrono::milliseconds owner_first_byte(const config::Config& config) {
  return config.limits.upstream_first_byte_timeout_ms + config.cluster.peer_timeout_ms;
}

void note_fallback(WorkerContext& worker, const std::string& owner, const std::string& key,
                   std::string_view why) {
  worker.stats.owner_fallbacks.fetch_add(1, std::memory_order_relaxed);
  ProxyShared& shared = worker.shared;
  if (!shared.log.enabled(LogLevel::warn)) return;
  const auto held_back = shared.owner_fallback_log.admit(LogLimiter::Clock::now());
  if (!held_back) return;
  std::string line = "owner " + owner + " failed for " + key.substr(0, 256) + ": " +
                     std::string(why) + "; fetched from the origin";
  if (*held_back > 0) line += " (" + std::to_string(*held_back) + " more since the last line)";
  shared.log.warn(line);
}

}  // namespace

awaitable<std::optional<unsigned>> CacheService::fetch_from_owner(CacheRequest& r) {
  const config::Config& config = r.settings.config;
  if (config.cluster.miss_policy != config::MissPolicy::owner) co_return std::nullopt;
  // Purged here and not yet acknowledged everywhere: the owner may still hold
  // the old copy, so the origin answers (docs/peers.md).
  if (peers_->tombstoned(r.route.cache_key)) co_return std::nullopt;
  // Held for the exchange: an owner removed meanwhile stays valid until it ends.
  const std::shared_ptr<Peer> owner = peers_->owner_of(r.route.cache_key);
  if (!owner) co_return std::nullopt;  // this node owns the key: its own miss path
  const config::PeerConfig& peer = owner->config;
  r.worker.stats.owner_fetches.fetch_add(1, std::memory_order_relaxed);
  const config::LimitsConfig limits = peer_limits(config, owner_first_byte(config));
  UpstreamRequest up{peer_origin(config, peer),
                     {},
                     peer_request_head(r, peers_->node_id(), protocol::PeerAuthScope::owner_fetch),
                     false,
                     {}};
  auto [ec, res] = co_await exchange_with_upstream(r.worker, limits, up, nullptr);
  if (ec) {
    peers_->report_owner_failure(*owner, ec.message());
    note_fallback(r.worker, peer.id, r.route.cache_key, ec.message());
    co_return std::nullopt;
  }
  // An answer of the owner's own making (refused, draining, loop, its origin
  // unreachable): this node tries the origin itself. The origin's own answer,
  // whatever its status, is relayed.
  if (res->parser->get()["X-Cache"] == "ERROR") {
    const std::string why = "answered " + std::to_string(res->parser->get().result_int());
    co_await finish_upstream(r.worker, limits, std::move(res));
    peers_->report_owner_failure(*owner, why);
    note_fallback(r.worker, peer.id, r.route.cache_key, why);
    co_return std::nullopt;
  }
  if (purged_by_tag(*peers_, config.cache, res->parser->get())) {
    // The owner has not applied a tag purge of ours yet: its copy is the purged one.
    co_await finish_upstream(r.worker, limits, std::move(res));
    r.worker.stats.peer_copies_purged.fetch_add(1, std::memory_order_relaxed);
    note_fallback(r.worker, peer.id, r.route.cache_key, "a copy tagged by an unacknowledged purge");
    co_return std::nullopt;
  }
  r.record.hierarchy = {"CARP", peer.id};
  co_return co_await relay_and_store(r, std::move(res), CacheResult::owner,
                                     config.cluster.store_peer_hits);
}

}  // namespace sumcache::daemon
