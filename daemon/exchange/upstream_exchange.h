#pragma once
// One request to an origin: acquire a pooled connection, send the head,
// stream the client's body, relay interim 1xx responses (100 Continue, 102,
// 103 Early Hints) to the client unless it speaks HTTP/1.0 (RFC 9110 §15.2),
// and read the final response head. The body is
// left for the caller to relay or drain. A reused keep-alive connection that
// fails before any response byte is retried once on a fresh one when the
// request can be replayed (daemon/http/upstream_replay.h): the origin may have
// closed it while idle.

#include <chrono>
#include <memory>
#include <optional>

#include "daemon/exchange/client_exchange.h"
#include "daemon/exchange/proxy_context.h"

namespace sumcache::daemon {

struct UpstreamResponse {
  std::unique_ptr<UpstreamConnection> connection;
  beast::flat_buffer buffer;  // at most upstream_read_bound(limits.max_header_bytes)
  // Replaced for each message on the connection: interim 1xx heads come first.
  std::optional<beast::http::response_parser<beast::http::buffer_body>> parser;
  std::chrono::system_clock::time_point request_time;   // RFC 9111 §4.2.3 request_time
  std::chrono::system_clock::time_point response_time;  // and response_time
};

struct UpstreamRequest {
  Origin origin;
  std::string_view tls_server_name;
  beast::http::request_header<> head;  // as it goes upstream: target, Host, Via, no hop-by-hop
  bool head_method = false;            // the response to HEAD has no body
  // Set when reading the client's body failed (malformed chunk, timeout):
  // the client's fault, answered with a 4xx rather than a 502.
  error_code client_error;
};

// `client` (may be null: a fetch of this node's own) receives interim
// responses, and its request body is streamed upstream.
awaitable<std::tuple<error_code, std::unique_ptr<UpstreamResponse>>> exchange_with_upstream(
    WorkerContext& worker, const config::LimitsConfig& limits, UpstreamRequest& request,
    ClientExchange* client);

// A read on `buffer` that failed at its bound (Beast's buffer_overflow) means
// the origin sent a chunk line or trailer section that never ended: named
// FramingErrc::line_too_long. Other errors pass unchanged.
error_code upstream_read_error(error_code ec);

// Reads and discards the rest of the response body (a 304 has none; an
// uncacheable error body may), then pools the connection when it allows and
// nothing was read past the end of the response.
awaitable<void> finish_upstream(WorkerContext& worker, const config::LimitsConfig& limits,
                                std::unique_ptr<UpstreamResponse> response);

}  // namespace sumcache::daemon
