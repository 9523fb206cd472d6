#include "daemon/session/request_answer.h"

#include "daemon/cache/cache_service.h"
#include "daemon/exchange/forward_flow.h"
#include "daemon/exchange/header_convert.h"
#include "daemon/exchange/request_route.h"
#include "daemon/exchange/squid_digest_target.h"
#include "daemon/http/hop_by_hop.h"
#include "daemon/session/peer_gate.h"
#include "daemon/session/proxy_purge.h"
#include "daemon/session/squid_digest_serve.h"
#include "daemon/session/tunnel.h"

namespace sumcache::daemon {
namespace {

bool is_cacheable_method(beast::http::verb method) {
  return method == beast::http::verb::get || method == beast::http::verb::head;
}

// `peer`: a verified peer request, which bypassed access.allow_clients and so
// gets what the store holds and nothing else, or for an owner fetch this
// node's miss path without other peers (docs/peers.md).
awaitable<unsigned> dispatch(WorkerContext& worker, CacheService* cache, const Settings& settings,
                             ClientExchange& client, AccessRecord& record, PeerScope peer) {
  const auto& req = client.request();
  const auto& config = settings.config;
  const unsigned version = req.version();
  const auto via = req[beast::http::field::via];
  if (!via.empty() && via_has_node({{"Via", std::string(via)}}, config.node.id)) {
    record.result = CacheResult::error;
    co_return co_await send_error(client, settings, beast::http::status::loop_detected,
                                  "forwarding loop: the request already passed " + config.node.id,
                                  version);
  }
  const auto host = req[beast::http::field::host];
  const std::optional<std::string_view> host_value =
      host.empty() ? std::nullopt : std::optional(host);
  // Before routing: in forward mode our own address is no destination, and
  // forward.allow_ports need not name our port.
  if (SquidDigestService* digest = cache != nullptr ? cache->squid_digest() : nullptr;
      digest != nullptr && peer == PeerScope::none && may_be_squid_digest_target(req.target())) {
    const auto uri = effective_request_uri(req.target(), host_value, "http");
    if (uri && is_own_squid_digest(*uri, settings.proxy_listeners,
                                   config.cluster.squid_digest.hostnames)) {
      record.url = cache_key(*uri);
      co_return co_await serve_squid_digest(*digest, settings, client, req, record);
    }
  }
  auto routed = route_request(config, req.method_string(), req.target(), host_value);
  if (auto* refusal = std::get_if<RouteRefusal>(&routed)) {
    record.result = CacheResult::error;
    co_return co_await send_error(client, settings,
                                  static_cast<beast::http::status>(refusal->status),
                                  refusal->reason, version);
  }
  const Route& route = std::get<Route>(routed);
  if (route.kind == RouteKind::tunnel) {
    record.url = req.target();
  } else {
    record.url = route.cache_key;
  }
  record.hierarchy = {"DIRECT", route.upstream.host};
  if (peer != PeerScope::none) {
    if (cache == nullptr || route.kind == RouteKind::tunnel || !is_cacheable_method(req.method())) {
      record.result = CacheResult::miss;
      co_return co_await send_error(client, settings, beast::http::status::gateway_timeout,
                                    "only-if-cached: not in this cache", version);
    }
    co_return co_await cache->serve(worker, settings, client, route, record, peer);
  }
  if (req.method() == beast::http::verb::purge) {
    co_return co_await serve_purge_method(worker, cache, settings, client, route, version, record,
                                          req[config.cache.tag_header]);
  }
  if (route.kind == RouteKind::tunnel) {
    record.result = CacheResult::tunnel;
    co_return co_await run_tunnel(worker, settings, client, route);
  }
  if (cache != nullptr && is_cacheable_method(req.method())) {
    co_return co_await cache->serve(worker, settings, client, route, record);
  }
  record.result = CacheResult::pass;
  if (cache != nullptr) {
    co_return co_await cache->forward_uncached(worker, settings, client, route);
  }
  const ForwardResult result = co_await forward_request(worker, settings, client, route, {});
  co_return result.status;
}

}  // namespace

void note_peer_object_refusal(WorkerContext& worker, PeerObjectRefusal why,
                              const std::string& address, std::string_view what) {
  worker.stats.count_peer_object_refusal(why);
  ProxyShared& shared = worker.shared;
  if (!shared.log.enabled(LogLevel::warn)) return;
  const auto held_back = shared.peer_object_log.admit(LogLimiter::Clock::now());
  if (!held_back) return;
  std::string line = "peer object listener refused " + address + ": " + std::string(what);
  if (*held_back > 0) line += " (" + std::to_string(*held_back) + " more since the last line)";
  shared.log.warn(line);
}

awaitable<unsigned> answer_request(WorkerContext& worker, CacheService* cache,
                                   const Settings& settings, ClientExchange& client,
                                   AccessRecord& record, bool peers_only) {
  fill_record(record, client);
  const auto& req = client.request();
  // Before the allow-list: only a verified peer may pass without a place in it.
  const PeerRequestCheck peer_check =
      check_peer_headers(settings, req, cache != nullptr ? cache->peers() : nullptr);
  const bool verified_peer = peer_check.kind == PeerRequestKind::verified_peer;
  if (peer_check.kind == PeerRequestKind::refused) {
    client.keep_alive = false;
    record.result = CacheResult::error;
    co_return co_await refuse_peer_request(worker, settings, client, peer_check, req.version());
  }
  if (peers_only && !verified_peer) {
    client.keep_alive = false;
    record.result = CacheResult::error;
    note_peer_object_refusal(worker, PeerObjectRefusal::not_peer, client.address_text(),
                             "a request that is not a verified peer's");
    co_return co_await send_error(client, settings, beast::http::status::forbidden,
                                  "this port serves verified peer requests only", req.version());
  }
  if (!verified_peer && !settings.clients.allows(client.address())) {
    client.keep_alive = false;
    record.result = CacheResult::error;
    co_return co_await send_error(client, settings, beast::http::status::forbidden,
                                  "client " + client.address_text() + " is not allowed",
                                  req.version());
  }
  const PeerScope scope = !verified_peer           ? PeerScope::none
                          : peer_check.owner_fetch ? PeerScope::owner_fetch
                                                   : PeerScope::store_only;
  co_return co_await dispatch(worker, cache, settings, client, record, scope);
}

void fill_record(AccessRecord& record, const ClientExchange& client) {
  const auto& req = client.request();
  record.client = client.address_text();
  record.method = std::string(req.method_string());
  record.url = std::string(req.target());
  record.version = req.version();
  record.user_agent = std::string(req[beast::http::field::user_agent]);
  record.referer = std::string(req[beast::http::field::referer]);
}

void log_exchange(WorkerContext& worker, AccessRecord& record, unsigned status,
                  const ClientExchange& client, std::chrono::steady_clock::time_point started) {
  record.status = status;
  record.bytes = client.bytes_out;
  record.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - started);
  worker.stats.count(record.result);
  worker.metrics.record(record);
  worker.stats.bytes_out.fetch_add(record.bytes, std::memory_order_relaxed);
  worker.shared.access_log.write(record);
}

}  // namespace sumcache::daemon
