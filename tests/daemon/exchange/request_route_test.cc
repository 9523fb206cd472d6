#include "daemon/exchange/request_route.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

config::Config forward() { return config::Config{}; }  // forward is the default mode

config::Config reverse(config::HostHeader host_header = config::HostHeader::keep) {
  config::Config c;
  c.mode = config::Mode::reverse;
  c.reverse.origin = {config::Scheme::https, "origin.example", 8443};
  c.reverse.host_header = host_header;
  return c;
}

Route routed(const config::Config& c, std::string_view method, std::string_view target,
             std::optional<std::string_view> host = std::nullopt) {
  auto result = route_request(c, method, target, host);
  if (const auto* refusal = std::get_if<RouteRefusal>(&result)) {
    ADD_FAILURE() << method << " " << target << " refused: " << refusal->status << " "
                  << refusal->reason;
    return {};
  }
  return std::get<Route>(std::move(result));
}

RouteRefusal refused(const config::Config& c, std::string_view method, std::string_view target,
                     std::optional<std::string_view> host = std::nullopt) {
  auto result = route_request(c, method, target, host);
  if (std::holds_alternative<Route>(result)) {
    ADD_FAILURE() << method << " " << target << " was routed";
    return {0, ""};
  }
  return std::get<RouteRefusal>(std::move(result));
}

// RFC 9112 §3.2.2: a forward proxy takes the origin from the absolute-form
// target; the cache key is the normalized URI (RFC 9110 §4.2.3).
TEST(RequestRoute, ForwardAbsoluteFormGoesToItsOwnOrigin_Rfc9112_3_2_2) {
  const Route r = routed(forward(), "GET", "http://Example.COM/a/b?x=1&y");
  EXPECT_EQ(r.kind, RouteKind::fetch);
  EXPECT_EQ(r.upstream, (Origin{false, "example.com", 80}));
  EXPECT_EQ(r.upstream_target, "/a/b?x=1&y");
  EXPECT_EQ(r.host_header, "example.com");
  EXPECT_EQ(r.cache_key, "http://example.com/a/b?x=1&y");
  EXPECT_EQ(r.uri.path, "/a/b");
  EXPECT_EQ(r.uri.query, "x=1&y");
}

TEST(RequestRoute, ForwardHttpsAndPortsShapeTheOriginAndHost) {
  const Route https = routed(forward(), "GET", "https://example.com:443");
  EXPECT_EQ(https.upstream, (Origin{true, "example.com", 443}));
  EXPECT_EQ(https.host_header, "example.com");  // the default port is left out
  EXPECT_EQ(https.upstream_target, "/");        // an empty path is "/"
  EXPECT_EQ(https.cache_key, "https://example.com/");

  const Route other = routed(forward(), "GET", "http://example.com:8080/p?");
  EXPECT_EQ(other.upstream, (Origin{false, "example.com", 8080}));
  EXPECT_EQ(other.host_header, "example.com:8080");
  EXPECT_EQ(other.upstream_target, "/p?");  // an empty query stays
  EXPECT_EQ(other.cache_key, "http://example.com:8080/p?");
}

// An IPv6 literal: brackets in the Host header and the key, none to connect.
TEST(RequestRoute, ForwardIpv6LiteralConnectsWithoutBrackets) {
  const Route r = routed(forward(), "GET", "http://[::1]:8080/x");
  EXPECT_EQ(r.upstream, (Origin{false, "::1", 8080}));
  EXPECT_EQ(r.host_header, "[::1]:8080");
  EXPECT_EQ(r.cache_key, "http://[::1]:8080/x");
}

// RFC 9112 §3.2.2: with an absolute-form target the Host field is ignored.
TEST(RequestRoute, ForwardIgnoresTheHostField_Rfc9112_3_2_2) {
  const Route r = routed(forward(), "GET", "http://a.example/x", "b.example");
  EXPECT_EQ(r.upstream.host, "a.example");
  EXPECT_EQ(r.host_header, "a.example");
  EXPECT_EQ(r.cache_key, "http://a.example/x");
}

TEST(RequestRoute, ForwardRefusesTargetsItCannotFetch) {
  for (std::string_view target : {"/a", "", "*"}) {
    const RouteRefusal r = refused(forward(), "GET", target, "example.com");
    EXPECT_EQ(r.status, 400U) << target;
    EXPECT_NE(r.reason.find(target == "*" ? "invalid request target" : "absolute-form"),
              std::string::npos)
        << target << ": " << r.reason;
  }
  for (std::string_view target : {"ftp://example.com/", "http://", "http://exa mple.com/",
                                  "http://example.com:99999/", "example.com:80"}) {
    const RouteRefusal r = refused(forward(), "GET", target);
    EXPECT_EQ(r.status, 400U) << target;
    EXPECT_EQ(r.reason.rfind("invalid request target: ", 0), 0U) << target << ": " << r.reason;
  }
}

// forward.allow_ports: 80, 443 and 1025-65535 by default; others are 403.
TEST(RequestRoute, ForwardRefusesPortsOutsideAllowPorts) {
  const RouteRefusal r = refused(forward(), "GET", "http://example.com:22/");
  EXPECT_EQ(r.status, 403U);
  EXPECT_EQ(r.reason, "destination port 22 is not allowed");
  EXPECT_EQ(refused(forward(), "GET", "http://example.com:1024/").status, 403U);
  EXPECT_EQ(routed(forward(), "GET", "http://example.com:1025/").upstream.port, 1025);
  EXPECT_EQ(routed(forward(), "GET", "http://example.com:65535/").upstream.port, 65535);

  config::Config only_8080 = forward();
  only_8080.forward.allow_ports = {{8080, 8080}};
  EXPECT_EQ(refused(only_8080, "GET", "http://example.com/").status, 403U);
  EXPECT_EQ(routed(only_8080, "GET", "http://example.com:8080/").upstream.port, 8080);
}

// RFC 9110 §9.3.6: CONNECT takes the authority-form host:port; a tunnel.
TEST(RequestRoute, ConnectAuthorityFormIsATunnel_Rfc9110_9_3_6) {
  const Route r = routed(forward(), "CONNECT", "example.com:443");
  EXPECT_EQ(r.kind, RouteKind::tunnel);
  EXPECT_EQ(r.upstream, (Origin{false, "example.com", 443}));
  EXPECT_TRUE(r.cache_key.empty());  // never cached

  const Route v6 = routed(forward(), "CONNECT", "[2001:db8::1]:443");
  EXPECT_EQ(v6.upstream.host, "2001:db8::1");
  EXPECT_EQ(v6.upstream.port, 443);
}

TEST(RequestRoute, ConnectRefusesBadAuthoritiesAndPortsNotInConnectPorts) {
  for (std::string_view target : {"example.com", ":443", ""}) {
    const RouteRefusal r = refused(forward(), "CONNECT", target);
    EXPECT_EQ(r.status, 400U) << target;
    EXPECT_EQ(r.reason, "CONNECT target must be host:port") << target;
  }
  for (std::string_view target : {"example.com:", "example.com:0", "example.com:65536",
                                  "example.com:44x", "example.com:-1", "example.com:+443"}) {
    const RouteRefusal r = refused(forward(), "CONNECT", target);
    EXPECT_EQ(r.status, 400U) << target;
    EXPECT_EQ(r.reason, "CONNECT target has an invalid port") << target;
  }
  // forward.connect_ports is [443] by default: a tunnel to anything else is 403.
  const RouteRefusal ssh = refused(forward(), "CONNECT", "example.com:22");
  EXPECT_EQ(ssh.status, 403U);
  EXPECT_EQ(ssh.reason, "CONNECT to port 22 is not allowed");
  EXPECT_EQ(refused(forward(), "CONNECT", "example.com:80").status, 403U);

  config::Config c = forward();
  c.forward.connect_ports = {443, 8443};
  EXPECT_EQ(routed(c, "CONNECT", "example.com:8443").upstream.port, 8443);
}

// The method name is case-sensitive (RFC 9110 §9.1): "connect" is not CONNECT.
TEST(RequestRoute, OnlyTheExactMethodConnectTunnels_Rfc9110_9_1) {
  const RouteRefusal r = refused(forward(), "connect", "example.com:443");
  EXPECT_EQ(r.status, 400U);
  EXPECT_EQ(r.reason.rfind("invalid request target: ", 0), 0U) << r.reason;
}

// Reverse mode: every request goes to reverse.origin; the key is the target
// URI from the Host field and the listener's scheme (RFC 9112 §3.3).
TEST(RequestRoute, ReverseSendsEverythingToTheOriginKeyedByHost_Rfc9112_3_3) {
  const Route r = routed(reverse(), "GET", "/p?q=1", "WWW.Example");
  EXPECT_EQ(r.kind, RouteKind::fetch);
  EXPECT_EQ(r.upstream, (Origin{true, "origin.example", 8443}));
  EXPECT_EQ(r.upstream_target, "/p?q=1");
  EXPECT_EQ(r.host_header, "www.example");  // host_header "keep": the key's authority
  EXPECT_EQ(r.cache_key, "http://www.example/p?q=1");

  const Route o = routed(reverse(config::HostHeader::origin), "GET", "/p", "www.example");
  EXPECT_EQ(o.host_header, "origin.example:8443");
  EXPECT_EQ(o.cache_key, "http://www.example/p");  // the key still from the client's Host
}

// RFC 9112 §3.2.2: an absolute-form target is accepted by a reverse proxy
// too, and names the key; the connection still goes to reverse.origin.
TEST(RequestRoute, ReverseAcceptsAbsoluteFormForTheKeyOnly_Rfc9112_3_2_2) {
  const Route r = routed(reverse(), "GET", "http://a.example:8080/x", "b.example");
  EXPECT_EQ(r.upstream, (Origin{true, "origin.example", 8443}));
  EXPECT_EQ(r.cache_key, "http://a.example:8080/x");
  EXPECT_EQ(r.upstream_target, "/x");
}

// Issue 27 item 1: with host_header keep, the Host sent upstream is the
// authority the key was made from, never the raw field. An absolute-form
// target naming one host with a Host field naming another used to go to the
// origin with the other Host and be stored under the first one's key.
TEST(RequestRoute, ReverseKeepSendsTheKeysAuthorityNotTheHostField_Rfc9112_3_2_2) {
  const Route r = routed(reverse(), "GET", "http://victim.example/p", "attacker.example");
  EXPECT_EQ(r.cache_key, "http://victim.example/p");
  EXPECT_EQ(r.host_header, "victim.example");
  const Route port = routed(reverse(), "GET", "http://Victim.Example.:8080/p", "attacker.example");
  EXPECT_EQ(port.cache_key, "http://victim.example:8080/p");
  EXPECT_EQ(port.host_header, "victim.example:8080");
  for (std::string_view host : {"victim.example", "VICTIM.example.", "victim.example:80"}) {
    const Route o = routed(reverse(), "GET", "/p", host);
    EXPECT_EQ(o.cache_key, "http://victim.example/p") << host;
    EXPECT_EQ(o.host_header, "victim.example") << host;
  }
}

TEST(RequestRoute, ReverseRefusesHostsWithUserinfoOrAPath) {
  for (std::string_view host : {"u@victim.example", "victim.example/p", "%76ictim.example"}) {
    EXPECT_EQ(refused(reverse(), "GET", "/p", host).status, 400U) << host;
  }
}

TEST(RequestRoute, ReverseRefusesConnectAndTargetsWithoutAUri) {
  const RouteRefusal connect = refused(reverse(), "CONNECT", "origin.example:443", "x");
  EXPECT_EQ(connect.status, 405U);
  EXPECT_EQ(connect.reason, "CONNECT is not served by a reverse proxy");

  // Origin-form needs a Host (RFC 9112 §3.2); asterisk- and authority-form
  // name no resource to cache.
  for (auto [target, host] :
       {std::pair<std::string_view, std::optional<std::string_view>>{"/p", std::nullopt},
        {"/p", ""},
        {"*", "www.example"},
        {"www.example:80", "www.example"},
        {"p", "www.example"}}) {
    const RouteRefusal r = refused(reverse(), "GET", target, host);
    EXPECT_EQ(r.status, 400U) << target;
    EXPECT_EQ(r.reason.rfind("invalid request target: ", 0), 0U) << target << ": " << r.reason;
  }
}

// What an origin receives: path and query, never the fragment.
TEST(RequestRoute, OriginFormIsPathAndQuery) {
  EXPECT_EQ(origin_form({"http", "a", 80, "/p", std::nullopt}), "/p");
  EXPECT_EQ(origin_form({"http", "a", 80, "/p", ""}), "/p?");
  EXPECT_EQ(origin_form({"http", "a", 80, "/p", "a=1"}), "/p?a=1");
  EXPECT_EQ(routed(forward(), "GET", "http://a.example/p?q#frag").upstream_target, "/p?q");
}

}  // namespace
}  // namespace sumcache::daemon
