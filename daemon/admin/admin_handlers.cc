#include "daemon/admin/admin_handlers.h"

#include "config/config_json.h"
#include "config/peer_entry.h"
#include "daemon/admin/admin_routes.h"
#include "daemon/admin/dashboard_page.h"
#include "daemon/admin/metrics_redis.h"
#include "daemon/admin/metrics_text.h"
#include "daemon/admin/stats_collect.h"
#include "daemon/admin/stats_json.h"
#include "daemon/admin/token_check.h"
#include "daemon/cache/cache_service.h"
#include "daemon/cache/squid_digest_service.h"
#include "daemon/peer/peer_service.h"
#include "daemon/session/purge_answer.h"
#include "daemon/session/purge_request.h"
#include "daemon/session/worker.h"

namespace sumcache::daemon {
namespace {

// A worker busy with one long step still answers within this; one that does
// not is left out of the upstream figures rather than holding up /stats.
constexpr std::chrono::milliseconds kWorkerAnswer{200};

// Strings here may hold bytes from outside (a peer's error text, a purged
// tag): what is not UTF-8 becomes U+FFFD, where dump() would throw instead.
template <class Json>
AdminResponse json_response(unsigned status, const Json& body) {
  return {status,
          "application/json",
          body.dump(2, ' ', false, Json::error_handler_t::replace) + "\n",
          {}};
}

AdminResponse text_response(unsigned status, std::string body) {
  return {status, "text/plain; charset=utf-8", std::move(body), {}};
}

StatsSnapshot full_snapshot(AdminContext& context) {
  StatsSnapshot s = collect_stats(context);
  const auto add = [](AcceptCounts& sum, const AcceptCounts& more) {
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += more[i];
  };
  s.admin_accept_failures = context.accept_failures.snapshot();
  if (context.tls_listeners != nullptr && !context.tls_listeners->listeners.empty()) {
    s.tls = context.tls_listeners->stats();
  }
  for (Worker* worker : context.workers) {
    add(s.proxy_accept_failures, worker->proxy_accept_failures());
    add(s.peer_object_accept_failures, worker->peer_object_accept_failures());
    if (auto pool = worker->upstream_stats(kWorkerAnswer)) {
      s.upstream.connects += pool->connects;
      s.upstream.connect_failures += pool->connect_failures;
      s.upstream.reuses += pool->reuses;
      s.upstream.idle += pool->idle;
      s.upstream.idle_closed += pool->idle_closed;
      s.upstream.stray_discarded += pool->stray_discarded;
      s.upstream.fresh_retries += pool->fresh_retries;
    }
  }
  return s;
}

AdminResponse readiness(const AdminContext& context) {
  const ProxyShared& shared = context.shared;
  if (shared.draining.load()) return admin_error(503, "draining: the daemon is stopping");
  if (!shared.listening.load()) return admin_error(503, "the proxy listeners are not up yet");
  if (context.cache == nullptr) return admin_error(503, "no cache store is loaded");
  return text_response(200, "ready\n");
}

awaitable<AdminResponse> purge(AdminContext& context, const AdminRequest& request,
                               asio::any_io_executor executor) {
  std::string why;
  const auto target = parse_purge_body(request.content_type, request.body, why);
  if (!target) co_return admin_error(400, why);
  CacheService* cache = context.cache;
  CacheService::Purged purged;
  if (cache != nullptr) {
    switch (target->kind) {
      case PurgeKind::url:
        purged = cache->purge(target->cache_key);
        break;
      case PurgeKind::tag:
        purged = cache->purge_tag(target->cache_key);
        break;
      case PurgeKind::prefix:
        purged = cache->purge_prefix(target->cache_key);
        break;
    }
  }
  // The answer says where it took effect: the peers' acks, for up to cluster.peer_timeout_ms.
  // Not a co_await inside a conditional expression: GCC 12 destroys its result too early.
  PurgeReach reach;
  if (cache != nullptr) reach = co_await cache->await_reach(purged.sequence, executor);
  const char* member = purge_member(target->kind);
  context.shared.log.info("admin: purge of " + std::string(member) + " " + target->cache_key +
                          " by " + request.client_text + ": " + std::to_string(purged.removed) +
                          " objects removed, acknowledged by " + std::to_string(reach.acked) +
                          " of " + std::to_string(reach.total) + " nodes");
  nlohmann::ordered_json body = {{"purged", purged.removed}, {member, target->url}};
  if (target->kind != PurgeKind::tag) body["key"] = target->cache_key;
  body["nodes"] = reach_json(reach);
  co_return json_response(purged.removed > 0 ? 200 : 404, body);
}

// POST /peers and DELETE /peers/ID (docs/admin.md): live membership, until
// the next restart or a reload that changes the same id in the file.
awaitable<AdminResponse> change_peers(AdminContext& context, const AdminRequest& request,
                                      const AdminRoute& route, const config::Config& node) {
  PeerService* peers = context.peers();
  if (peers == nullptr) {
    co_return admin_error(409, "this node runs no cluster: cluster.sharing is \"none\"");
  }
  std::string id(route.peer_id);
  MembershipResult result;
  if (route.endpoint == AdminEndpoint::peer_add) {
    const std::string_view type =
        std::string_view(request.content_type).substr(0, request.content_type.find(';'));
    if (!type.empty() && type != "application/json") {
      co_return admin_error(415, "the body is a peers[] entry: Content-Type application/json");
    }
    std::string why;
    // The config file's rules for an entry, against the config running now.
    auto peer = config::parse_peer_entry(request.body, node, why);
    if (!peer) co_return admin_error(400, "not a peers[] entry: " + why);
    id = peer->id;
    result = co_await peers->add_peer(std::move(*peer));
  } else {
    result = co_await peers->remove_peer(id);
  }
  context.shared.log.info(
      "admin: " + std::string(route.endpoint == AdminEndpoint::peer_add ? "add" : "remove") +
      " peer " + id.substr(0, 64) + " by " + request.client_text + ": " +
      std::to_string(result.status) + " " + result.reason);
  if (result.status >= 400) co_return admin_error(result.status, result.reason);
  const nlohmann::ordered_json body = {
      {route.endpoint == AdminEndpoint::peer_add ? "added" : "removed", id},
      {"peers", peers->table().size()}};
  co_return json_response(result.status, body);
}

AdminResponse unauthorized(TokenCheck check) {
  if (check == TokenCheck::not_configured) return admin_error(403, "no admin token configured");
  AdminResponse r = admin_error(401, check == TokenCheck::missing
                                         ? "this path needs Authorization: Bearer <admin token>"
                                         : "the bearer token is not the admin token");
  // RFC 6750 §3: the challenge; invalid_token only when a token was offered.
  r.fields.emplace_back("WWW-Authenticate",
                        check == TokenCheck::missing
                            ? R"(Bearer realm="sumcached")"
                            : R"(Bearer realm="sumcached", error="invalid_token")");
  return r;
}

AdminResponse serve(AdminContext& context, AdminEndpoint endpoint, const Settings& settings) {
  switch (endpoint) {
    case AdminEndpoint::dashboard:
      return {200, "text/html; charset=utf-8", std::string(dashboard_html()), {}};
    case AdminEndpoint::stats:
      return json_response(200, stats_json(full_snapshot(context)));
    case AdminEndpoint::metrics:
      return {200, kMetricsContentType, metrics_text(full_snapshot(context)), {}};
    case AdminEndpoint::peers: {
      const PeerService* peers = context.peers();
      auto body = peers_json(peers != nullptr ? peers->status() : PeerStatusList{});
      if (const auto inv = peers != nullptr ? peers->invalidation_stats() : std::nullopt) {
        add_invalidations_json(body, *inv);
      }
      if (peers != nullptr) add_summary_memory_json(body, peers->summary_memory());
      // How summaries travel (docs/peers.md, "Redis transport").
      body["transport"] =
          settings.config.cluster.transport == config::ClusterTransport::redis ? "redis" : "mesh";
      if (const auto redis = peers != nullptr ? peers->redis_stats() : std::nullopt) {
        body["redis"] = redis_json(*redis);
      }
      return json_response(200, body);
    }
    case AdminEndpoint::filter:
      return json_response(200, filter_json(collect_stats(context)));
    case AdminEndpoint::healthz:
      return text_response(200, "ok\n");
    case AdminEndpoint::readyz:
      return readiness(context);
    case AdminEndpoint::config:
      return json_response(200, config::to_json(settings.config, true));
    case AdminEndpoint::squid_digest_rebuild: {
      SquidDigestService* digest =
          context.cache != nullptr ? context.cache->squid_digest() : nullptr;
      if (digest == nullptr) {
        return admin_error(404, "the Squid digest is off (cluster.squid_digest.enabled)");
      }
      digest->rebuild_now();
      // 202: the build runs on the digest's own thread; /filter's
      // squid_digest.builds and last_modified show when it is done.
      return text_response(202, "202 Accepted: Squid digest rebuild started\n");
    }
    case AdminEndpoint::purge:
    case AdminEndpoint::peer_add:
    case AdminEndpoint::peer_remove:
      break;  // handle_admin: they wait for the peers or the peer thread
  }
  return admin_error(404, "no such admin path");
}

}  // namespace

AdminResponse admin_error(unsigned status, std::string_view why) {
  const auto reason = beast::http::obsolete_reason(static_cast<beast::http::status>(status));
  return text_response(
      status, std::to_string(status) + " " + std::string(reason) + ": " + std::string(why) + "\n");
}

awaitable<AdminResponse> handle_admin(AdminContext& context, const AdminRequest& request,
                                      asio::any_io_executor executor) {
  const auto settings = context.shared.settings.get();
  if (!settings->admin_clients.allows(request.client)) {
    co_return admin_error(403, "client " + request.client_text + " is not in admin.allow");
  }
  const AdminRoute route = route_admin(request.method, request.target);
  if (route.status == 404) co_return admin_error(404, "no such admin path");
  if (route.status == 405) {
    AdminResponse r = admin_error(405, request.method + " is not allowed here");
    r.fields.emplace_back("Allow", std::string(route.allow));
    co_return r;
  }
  if (route.changes_state) {
    const TokenCheck check =
        check_bearer_token(request.authorization, settings->config.admin.token);
    if (check != TokenCheck::ok) co_return unauthorized(check);
  }
  if (route.endpoint == AdminEndpoint::purge) co_return co_await purge(context, request, executor);
  if (route.endpoint == AdminEndpoint::peer_add || route.endpoint == AdminEndpoint::peer_remove) {
    co_return co_await change_peers(context, request, route, settings->config);
  }
  co_return serve(context, route.endpoint, *settings);
}

}  // namespace sumcache::daemon
