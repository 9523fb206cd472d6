#pragma once
// Requests that are not answered from the cache: any method, extension
// methods included, forwarded with the client's body streamed upstream and
// the response streamed back. A successful unsafe request invalidates what
// the cache holds for its target (RFC 9111 §4.4), via the CacheService.

#include <functional>

#include "daemon/exchange/client_exchange.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/exchange/request_route.h"
#include "daemon/exchange/response_relay.h"
#include "daemon/exchange/upstream_exchange.h"

namespace sumcache::daemon {

// The head sent upstream: origin-form target, Host per config, hop-by-hop
// fields removed, Via appended, X-Forwarded-For in reverse mode.
beast::http::request_header<> make_upstream_head(const beast::http::request_header<>& client_head,
                                                 bool body_chunked, const Route& route,
                                                 const Settings& settings,
                                                 std::string_view client_address);

// Writes an error response; the connection closes after it when asked.
awaitable<unsigned> send_error(ClientExchange& client, const Settings& settings,
                               beast::http::status status, std::string_view reason,
                               unsigned version);

// Counts a failed upstream exchange in /metrics. A destination the policy
// refused is not one: nothing was attempted, and destination_guard.cc counted
// it in its own counter (sumcache_upstream_refused_destinations_total).
void count_upstream_failure(WorkerContext& worker, error_code ec);

// The error log's line for an upstream failure answered with `status`.
void log_upstream_failure(ProxyShared& shared, unsigned status, const Route& route, error_code ec);

// Maps an upstream failure to 502 or 504 with a reason, and logs it (the
// upstream, the cause, the URL) once a second at most per status with the
// number held back; a refused destination is a 403 (destination_guard.h).
awaitable<unsigned> send_upstream_error(ProxyShared& shared, ClientExchange& client,
                                        const Settings& settings, const Route& route, error_code ec,
                                        unsigned version);

struct ForwardResult {
  unsigned status = 0;
  std::string location;  // of the response, for invalidation (RFC 9111 §4.4)
  std::string content_location;
};

// Says whether to keep a copy of the response body, seeing the upstream's
// head as it came (before it is prepared for the client): the cache stores
// some POST responses (RFC 9110 §9.3.3).
using CaptureHook = std::function<BodyCapture(const UpstreamResponse&)>;

// `on_head` sees the upstream's answer before its body is relayed, so that
// invalidation (RFC 9111 §4.4: on receiving the status) is done before the
// client can send its next request, and before a captured body is stored.
// Either hook may be empty.
awaitable<ForwardResult> forward_request(
    WorkerContext& worker, const Settings& settings, ClientExchange& client, const Route& route,
    const std::function<void(const ForwardResult&)>& on_head, const CaptureHook& capture = {});

}  // namespace sumcache::daemon
