// CacheService::forward_uncached: requests the cache does not answer, with
// invalidation (RFC 9111 §4.4) and the POST responses it may store
// (RFC 9110 §9.3.3).

#include "daemon/cache/cache_fill.h"
#include "daemon/cache/cache_service.h"
#include "daemon/cache/store_on_fill.h"
#include "daemon/exchange/header_convert.h"
#include "daemon/http/targeted_cache_control.h"

namespace sumcache::daemon {

awaitable<unsigned> CacheService::forward_uncached(WorkerContext& worker,
                                                   const Settings& settings,
                                                   ClientExchange& client, const Route& route) {
  const std::string method(client.request().method_string());
  ResponseFacts facts;
  const CaptureHook capture = [&](const UpstreamResponse& res) {
    BodyCapture copy;
    if (method != "POST") return copy;
    const auto& msg = res.parser->get();
    facts = ResponseFacts{static_cast<int>(msg.result_int()),
                          std::string(msg.reason()),
                          to_header_list(msg.base()),
                          {},
                          exchange_times(res.request_time, res.response_time)};
    facts.directives =
        effective_response_directives(facts.fields, settings.config.cache.targeted_fields);
    const HeaderList request_fields = to_header_list(client.request());
    auto variant = post_fill_variant(request_fields, request_directives(request_fields), facts,
                                     policy_.max_object_bytes, route.uri);
    if (!variant) return copy;
    copy.active = true;
    copy.limit = store_.memory_room();
    // Runs after the body is complete, so after the invalidation on the head.
    copy.on_complete = [&, variant = std::move(*variant)](std::string& body) mutable {
      store_fill(worker, store_, settings,
                 {route.cache_key, store_.hash_key(route.cache_key), std::move(variant)}, facts,
                 std::move(body));
    };
    return copy;
  };
  const std::function<void(const ForwardResult&)> invalidate = [&](const ForwardResult& result) {
    invalidate_after_unsafe(method, route, result);
  };
  const ForwardResult result =
      co_await forward_request(worker, settings, client, route, invalidate, capture);
  co_return result.status;
}

}  // namespace sumcache::daemon
