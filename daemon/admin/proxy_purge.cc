#include "daemon/admin/proxy_purge.h"

#include <nlohmann/json.hpp>

#include "daemon/admin/purge_answer.h"
#include "daemon/cache/cache_service.h"
#include "daemon/proxy/forward_flow.h"

namespace sumcache::daemon {

awaitable<unsigned> serve_purge_method(WorkerContext& worker, const Settings& settings,
                                       ClientConnection& client, const Route& route,
                                       unsigned version, AccessRecord& record) {
  record.result = CacheResult::pass;
  record.hierarchy = {};
  if (!settings.admin_clients.allows(client.address)) {
    record.result = CacheResult::error;
    co_return co_await send_error(client, settings, http::status::forbidden,
                                  "PURGE is allowed only from admin.allow networks", version);
  }
  CacheService* cache = worker.shared.cache;
  const CacheService::Purged purge =
      cache != nullptr ? cache->purge(route.cache_key) : CacheService::Purged{};
  const std::size_t purged = purge.removed;
  // The answer says where it took effect: the peers' acks, for up to cluster.peer_timeout_ms.
  // Not a co_await inside a conditional expression: GCC 12 destroys its result too early.
  PurgeReach reach;
  if (cache != nullptr) reach = co_await cache->await_reach(purge.sequence, worker.executor);
  worker.shared.log.info("PURGE of " + route.cache_key + " by " + client.address_text + ": " +
                         std::to_string(purged) + " objects removed, acknowledged by " +
                         std::to_string(reach.acked) + " of " + std::to_string(reach.total) +
                         " nodes");
  const auto status = purged > 0 ? http::status::ok : http::status::not_found;
  http::response<http::string_body> res{status, version == 10 ? 10U : 11U};
  res.set(http::field::content_type, "application/json");
  res.set(http::field::cache_control, "no-store");
  res.set(http::field::via, settings.via);
  res.body() =
      nlohmann::ordered_json{
          {"purged", purged}, {"key", route.cache_key}, {"nodes", reach_json(reach)}}
          .dump() +
      "\n";
  res.keep_alive(client.keep_alive);
  res.prepare_payload();
  client.stream.expires_after(settings.config.limits.upstream_io_timeout_ms);
  auto [ec, n] = co_await http::async_write(client.stream, res, use_nothrow);
  client.bytes_out += n;
  if (ec) client.keep_alive = false;
  co_return static_cast<unsigned>(status);
}

}  // namespace sumcache::daemon
