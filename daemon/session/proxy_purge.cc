#include "daemon/session/proxy_purge.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "daemon/cache/cache_service.h"
#include "daemon/exchange/forward_flow.h"
#include "daemon/session/purge_answer.h"
#include "daemon/session/purge_request.h"
#include "daemon/store/object_tags.h"
#include "protocol/invalidation_message.h"

namespace sumcache::daemon {
namespace {

// Tags one PURGE may name; each is a purge of its own to every peer.
constexpr std::size_t kMaxTagsPerPurge = 64;
constexpr std::size_t kMaxTagBytes = protocol::kMaxInvalidationTagBytes;

}  // namespace

awaitable<unsigned> serve_purge_method(WorkerContext& worker, CacheService* cache,
                                       const Settings& settings, ClientExchange& client,
                                       const Route& route, unsigned version, AccessRecord& record,
                                       std::string_view tags) {
  record.result = CacheResult::pass;
  record.hierarchy = {};
  if (!settings.admin_clients.allows(client.address())) {
    record.result = CacheResult::error;
    co_return co_await send_error(client, settings, beast::http::status::forbidden,
                                  "PURGE is allowed only from admin.allow networks", version);
  }
  const bool by_tag = !tags.empty();
  ObjectTags named;
  if (by_tag) {
    add_tags(tags, {settings.config.cache.tag_header, kMaxTagsPerPurge, kMaxTagBytes}, named);
    const bool valid = std::all_of(named.tags.begin(), named.tags.end(),
                                   [](const std::string& t) { return valid_purge_tag(t); });
    if (named.tags.empty() || named.too_many || named.too_long > 0 || !valid) {
      record.result = CacheResult::error;
      co_return co_await send_error(client, settings, beast::http::status::bad_request,
                                    settings.config.cache.tag_header + ": 1 to " +
                                        std::to_string(kMaxTagsPerPurge) + " tags of at most " +
                                        std::to_string(kMaxTagBytes) + " bytes",
                                    version);
    }
  }
  // Tags are purged one by one; their sequences increase, so the last one's
  // acknowledgement covers them all.
  CacheService::Purged purge;
  if (cache != nullptr && by_tag) {
    for (const std::string& tag : named.tags) {
      const CacheService::Purged one = cache->purge_tag(tag);
      purge.removed += one.removed;
      if (one.sequence != 0) purge.sequence = one.sequence;
    }
  } else if (cache != nullptr) {
    purge = cache->purge(route.cache_key);
  }
  const std::size_t purged = purge.removed;
  // The answer says where it took effect: the peers' acks, for up to cluster.peer_timeout_ms.
  // Not a co_await inside a conditional expression: GCC 12 destroys its result too early.
  PurgeReach reach;
  if (cache != nullptr) reach = co_await cache->await_reach(purge.sequence, worker.executor);
  const std::string what = by_tag ? "tag " + std::string(tags) : route.cache_key;
  worker.shared.log.info("PURGE of " + what + " by " + client.address_text() + ": " +
                         std::to_string(purged) + " objects removed, acknowledged by " +
                         std::to_string(reach.acked) + " of " + std::to_string(reach.total) +
                         " nodes");
  const auto status = purged > 0 ? beast::http::status::ok : beast::http::status::not_found;
  beast::http::response<beast::http::string_body> res{status, version == 10 ? 10U : 11U};
  res.set(beast::http::field::content_type, "application/json");
  res.set(beast::http::field::cache_control, "no-store");
  res.set(beast::http::field::via, settings.via);
  nlohmann::ordered_json body{{"purged", purged}};
  if (by_tag) {
    body["tag"] = std::string(tags);
  } else {
    body["key"] = route.cache_key;
  }
  body["nodes"] = reach_json(reach);
  // A tag is bytes, not necessarily UTF-8: U+FFFD for the rest, where dump() would throw.
  res.body() = body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  res.keep_alive(client.keep_alive);
  res.prepare_payload();
  co_await write_message(client, res);
  co_return static_cast<unsigned>(status);
}

}  // namespace sumcache::daemon
