#pragma once
// One GET or HEAD on its way through the cache, and the stored response
// picked for it. Private to daemon/cache.

#include <chrono>

#include "daemon/cache/cached_meta.h"
#include "daemon/exchange/client_exchange.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/exchange/request_route.h"
#include "daemon/http/cache_control.h"
#include "daemon/log/access_log.h"
#include "daemon/store/stored_object.h"

namespace sumcache::daemon {

struct CacheRequest {
  WorkerContext& worker;
  const Settings& settings;
  ClientExchange& client;
  const Route& route;
  AccessRecord& record;
  HeaderList headers;
  RequestDirectives directives;
  filters::Hash128 hash;
  bool head_method = false;
  bool conditional = false;  // If-None-Match or If-Modified-Since
  bool ranged = false;
  bool from_peer = false;  // kPeerRequestHeader: never sent on to a peer or owner
  std::chrono::sys_seconds now;
  // A response to this request may fill the cache: a plain GET.
  bool fills_cache() const {
    return !head_method && !conditional && !ranged && !directives.no_store;
  }
  // A response to this request may be kept as a partial one (RFC 9111 §3.3,
  // partial_table.h): a GET with Range and no other precondition.
  bool keeps_partial() const {
    return !head_method && !conditional && ranged && !directives.no_store;
  }
};

// The field to leave out of responses to this request; "" for none. A peer
// gets the tag field (cache.tag_header) so that it indexes the object too;
// clients do not, unless cache.tag_header_pass (docs/peers.md). With a
// cluster secret a peer's request is verified before it gets here.
inline std::string_view hidden_tag_field(const CacheRequest& r) {
  const auto& cache = r.settings.config.cache;
  return cache.tag_header_pass || r.from_peer ? std::string_view() : cache.tag_header;
}

struct Candidate {
  ObjectPtr object;
  CachedMeta meta;
};

}  // namespace sumcache::daemon
