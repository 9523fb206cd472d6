#include "daemon/exchange/request_route.h"

#include <algorithm>
#include <charconv>

namespace sumcache::daemon {
namespace {

bool port_allowed(const std::vector<config::PortRange>& ranges, std::uint16_t port) {
  for (const auto& r : ranges) {
    if (port >= r.first && port <= r.last) return true;
  }
  return false;
}

std::string bare_host(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return std::string(host.substr(1, host.size() - 2));
  }
  return std::string(host);
}

std::variant<Route, RouteRefusal> route_connect(const config::Config& config,
                                                std::string_view target) {
  const auto colon = target.rfind(':');
  std::uint16_t port = 0;
  if (colon == std::string_view::npos || colon == 0) {
    return RouteRefusal{400, "CONNECT target must be host:port"};
  }
  const std::string_view digits = target.substr(colon + 1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (ec != std::errc{} || end != digits.data() + digits.size() || port == 0) {
    return RouteRefusal{400, "CONNECT target has an invalid port"};
  }
  const auto& allowed = config.forward.connect_ports;
  if (std::find(allowed.begin(), allowed.end(), port) == allowed.end()) {
    return RouteRefusal{403, "CONNECT to port " + std::to_string(port) + " is not allowed"};
  }
  Route route;
  route.kind = RouteKind::tunnel;
  route.upstream = Origin{false, bare_host(target.substr(0, colon)), port};
  return route;
}

Route fetch_route(const EffectiveUri& uri, Origin upstream, std::string host_header) {
  Route route;
  route.upstream = std::move(upstream);
  route.upstream_target = origin_form(uri);
  route.host_header = std::move(host_header);
  route.uri = uri;
  route.cache_key = cache_key(uri);
  return route;
}

}  // namespace

std::string origin_form(const EffectiveUri& uri) {
  return uri.query ? uri.path + "?" + *uri.query : uri.path;
}

std::variant<Route, RouteRefusal> route_request(const config::Config& config,
                                                std::string_view method, std::string_view target,
                                                std::optional<std::string_view> host) {
  const bool connect = method == "CONNECT";
  if (config.mode == config::Mode::forward) {
    if (connect) return route_connect(config, target);
    if (target.empty() || target.front() == '/') {
      return RouteRefusal{400, "a forward proxy needs an absolute-form target (http://host/path)"};
    }
    auto uri = parse_absolute_uri(target);
    if (!uri) return RouteRefusal{400, "invalid request target: " + uri.error().message()};
    if (!port_allowed(config.forward.allow_ports, uri->port)) {
      return RouteRefusal{403, "destination port " + std::to_string(uri->port) + " is not allowed"};
    }
    Origin upstream{uri->scheme == "https", bare_host(uri->host), uri->port};
    return fetch_route(*uri, upstream, upstream.host_header());
  }
  if (connect) return RouteRefusal{405, "CONNECT is not served by a reverse proxy"};
  const auto& origin = config.reverse.origin;
  const bool tls = origin.scheme == config::Scheme::https;
  auto uri = effective_request_uri(target, host, "http");
  if (!uri) return RouteRefusal{400, "invalid request target: " + uri.error().message()};
  Origin upstream{tls, origin.host, origin.port};
  // keep: the request's own authority, in the spelling its key has, never the
  // raw field: an absolute-form target's authority wins over Host (RFC 9112
  // §3.2.2), so the origin picks the site the key names.
  std::string host_header = config.reverse.host_header == config::HostHeader::keep
                                ? canonical_authority(*uri)
                                : upstream.host_header();
  return fetch_route(*uri, upstream, std::move(host_header));
}

}  // namespace sumcache::daemon
