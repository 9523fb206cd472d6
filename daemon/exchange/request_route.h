#pragma once
// Where a request goes: a pure decision from the mode, the config and the
// request line, unit-tested without sockets (tests/daemon/exchange/request_route_test.cc).
//   forward: absolute-form http(s) targets (RFC 9112 §3.2.2) to their own
//            origin; CONNECT (authority-form) to forward.connect_ports only.
//   reverse: every request to the configured origin; the cache key from the
//            Host header (or an absolute-form target, whose authority wins)
//            and the scheme "http", the only one a client listener speaks.
// The key, the Host sent upstream (reverse.host_header keep: the same
// canonical authority) and the logged URL all come from one EffectiveUri.

#include <string>
#include <string_view>
#include <variant>

#include "config/config.h"
#include "daemon/exchange/origin.h"
#include "daemon/http/cache_key.h"

namespace sumcache::daemon {

enum class RouteKind { fetch, tunnel };

struct Route {
  RouteKind kind = RouteKind::fetch;
  Origin upstream;              // where to connect
  std::string upstream_target;  // origin-form target sent upstream
  std::string host_header;      // Host sent upstream: canonical, never the raw field
  EffectiveUri uri;             // the request's target URI
  std::string cache_key;        // cache_key(uri)
};

struct RouteRefusal {
  unsigned status = 400;  // 400, 403 or 405
  std::string reason;
};

std::variant<Route, RouteRefusal> route_request(const config::Config& config,
                                                std::string_view method, std::string_view target,
                                                std::optional<std::string_view> host);

// "/path?query" of a URI: what an origin receives.
std::string origin_form(const EffectiveUri& uri);

}  // namespace sumcache::daemon
