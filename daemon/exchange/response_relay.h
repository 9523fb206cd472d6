#pragma once
// Relays an upstream response to the client as it arrives: each piece of body
// upstream has sent is written to the client before the next read, through one
// buffer per relay, optionally keeping a copy for the store while the body
// stays within the object size limit.

#include <functional>
#include <string>

#include "daemon/exchange/upstream_exchange.h"

namespace sumcache::daemon {

struct BodyCapture {
  bool active = false;      // the response is storable so far
  std::uint64_t limit = 0;  // max_object_bytes: past it the copy is dropped
  std::string data;
  // Called with the complete copy after the last byte came from upstream and
  // before it goes to the client, so that a client's next request finds it.
  std::function<void(std::string&)> on_complete;
  // Instead of the copy: each piece as it came from upstream, awaited before
  // it goes to the client (`done`: the body is complete). False stops the
  // stream, not the relay. For bodies too large to copy (a disk-only fill).
  std::function<awaitable<bool>(std::string_view piece, bool done)> stream;
};

// Prepares upstream's head for the client: hop-by-hop removed, Via appended,
// Date added when upstream sent none, X-Cache set, framing that the client's HTTP version can
// carry. A response to HEAD keeps upstream's framing fields but carries no body.
void prepare_client_head(beast::http::response<beast::http::buffer_body>& msg,
                         bool keep_alive, unsigned client_version, bool head_method,
                         std::string_view via, std::string_view x_cache);

// Sends the prepared head and relays the body of `url`. On an error upstream
// (closed or stalled mid-body) the bytes received so far are sent first, the
// cut is counted and logged, and the caller must close the client connection
// so that the truncation shows.
awaitable<error_code> relay_response(WorkerContext& worker, ClientExchange& client,
                                     UpstreamResponse& upstream, const config::LimitsConfig& limits,
                                     BodyCapture& capture, std::string_view url);

}  // namespace sumcache::daemon
