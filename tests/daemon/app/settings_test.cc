#include <gtest/gtest.h>

#include "daemon/app/server.h"
#include "daemon/net/cidr.h"

namespace sumcache::daemon {
namespace {

Ip6Bytes ip(std::string_view text) { return parse_ip(text).value_or(Ip6Bytes{}); }

// The snapshot a SIGHUP swaps in: the config as loaded, and what is built from it.
TEST(Settings, AreBuiltFromTheConfig) {
  config::Config c;
  c.node.id = "edge-7";
  c.access.allow_clients = {"10.0.0.0/8"};
  c.admin.allow = {"::1/128"};
  c.access.deny_destinations = {"192.0.2.0/24"};
  const auto s = make_settings(c);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->config, c);
  EXPECT_EQ(s->via, "1.1 edge-7");  // RFC 9110 §7.6.3, our node id as received-by
  EXPECT_TRUE(s->clients.allows(ip("10.1.2.3")));
  EXPECT_FALSE(s->clients.allows(ip("127.0.0.1")));
  EXPECT_TRUE(s->admin_clients.allows(ip("::1")));
  EXPECT_FALSE(s->admin_clients.allows(ip("10.1.2.3")));
  EXPECT_TRUE(s->deny_destinations.allows(ip("192.0.2.9")));
  EXPECT_FALSE(s->deny_destinations.allows(ip("10.1.2.3")));
  // Filled in later by the Server, never from the config alone.
  EXPECT_TRUE(s->own_listeners.listeners.empty());
  EXPECT_TRUE(s->own_listeners.local_addresses.empty());
  EXPECT_FALSE(s->peer_sources.has_value());
}

// The defaults: private ranges only, never an open proxy; link-local refused upstream.
TEST(Settings, DefaultsAllowPrivateClientsAndDenyLinkLocalDestinations) {
  const auto s = make_settings(config::Config{});
  EXPECT_TRUE(s->clients.allows(ip("192.168.1.1")));
  EXPECT_TRUE(s->clients.allows(ip("fd00::1")));
  EXPECT_FALSE(s->clients.allows(ip("8.8.8.8")));
  EXPECT_TRUE(s->admin_clients.allows(ip("127.0.0.1")));
  EXPECT_FALSE(s->admin_clients.allows(ip("10.0.0.1")));
  EXPECT_TRUE(s->deny_destinations.allows(ip("169.254.169.254")));  // cloud metadata
  EXPECT_FALSE(s->deny_destinations.allows(ip("127.0.0.1")));
}

TEST(Settings, UpstreamTimeoutsComeFromTheLimits) {
  config::LimitsConfig limits;
  limits.dns_timeout_ms = std::chrono::milliseconds(1111);
  limits.upstream_connect_timeout_ms = std::chrono::milliseconds(2222);
  limits.upstream_idle_timeout_ms = std::chrono::milliseconds(3333);
  limits.upstream_max_idle_per_origin = 44;
  const UpstreamTimeouts t = upstream_timeouts(limits);
  EXPECT_EQ(t.dns, std::chrono::milliseconds(1111));
  EXPECT_EQ(t.connect, std::chrono::milliseconds(2222));
  EXPECT_EQ(t.idle, std::chrono::milliseconds(3333));
  EXPECT_EQ(t.max_idle_per_origin, 44U);
}

}  // namespace
}  // namespace sumcache::daemon
