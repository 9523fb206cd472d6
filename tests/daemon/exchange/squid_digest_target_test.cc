// Whether a request asks for this node's Squid digest
// (daemon/exchange/squid_digest_target.h): Squid's URL, addressed to one of
// our proxy listeners by address or configured name; never another host's.

#include "daemon/exchange/squid_digest_target.h"

#include <gtest/gtest.h>

#include <vector>

namespace sumcache::daemon {
namespace {

Ip6Bytes ip(std::string_view text) {
  const auto parsed = parse_ip(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed.value_or(Ip6Bytes{});
}

EffectiveUri uri(std::string_view text) {
  auto parsed = parse_absolute_uri(text);
  EXPECT_TRUE(parsed.ok()) << text;
  return parsed.ok() ? *parsed : EffectiveUri{};
}

class SquidDigestTarget : public ::testing::Test {
 protected:
  OwnListeners proxy_{{{ip("127.0.0.1"), 3128}}, {}};
  std::vector<std::string> names_{"Proxy1.Example"};
  bool ours(std::string_view url) const { return is_own_squid_digest(uri(url), proxy_, names_); }
};

// What Squid sends a sibling: GET http://HOST:PORT/squid-internal-periodic/store_digest.
TEST_F(SquidDigestTarget, OurListenerAddressAndPort) {
  EXPECT_TRUE(ours("http://127.0.0.1:3128/squid-internal-periodic/store_digest"));
}

// Squid's visible_hostname / hostname_aliases: by name, any case, our port only.
TEST_F(SquidDigestTarget, AConfiguredNameOnOurPort) {
  EXPECT_TRUE(ours("http://proxy1.example:3128/squid-internal-periodic/store_digest"));
  EXPECT_TRUE(ours("http://PROXY1.example:3128/squid-internal-periodic/store_digest"));
  EXPECT_FALSE(ours("http://proxy1.example:3129/squid-internal-periodic/store_digest"));
  EXPECT_FALSE(ours("http://proxy1.example/squid-internal-periodic/store_digest"));
}

// In forward mode another host's URL with that path is an ordinary proxied URL.
TEST_F(SquidDigestTarget, AnotherHostIsNotUs) {
  EXPECT_FALSE(ours("http://example.com/squid-internal-periodic/store_digest"));
  EXPECT_FALSE(ours("http://example.com:3128/squid-internal-periodic/store_digest"));
  EXPECT_FALSE(ours("http://127.0.0.2:3128/squid-internal-periodic/store_digest"));
  EXPECT_FALSE(ours("http://127.0.0.1:3129/squid-internal-periodic/store_digest"));
}

TEST_F(SquidDigestTarget, OnlyExactlySquidsPathOverHttp) {
  EXPECT_FALSE(ours("http://127.0.0.1:3128/squid-internal-periodic/store_digest?x=1"));
  EXPECT_FALSE(ours("http://127.0.0.1:3128/squid-internal-periodic/store_digest/"));
  EXPECT_FALSE(ours("http://127.0.0.1:3128/squid-internal-periodic/other"));
  EXPECT_FALSE(ours("https://127.0.0.1:3128/squid-internal-periodic/store_digest"));
}

// A wildcard listener answers on every local address (and loopback).
TEST_F(SquidDigestTarget, AWildcardListenerAnswersOnLocalAddresses) {
  proxy_ = {{{ip("0.0.0.0"), 3128}}, {ip("192.0.2.7")}};
  EXPECT_TRUE(ours("http://192.0.2.7:3128/squid-internal-periodic/store_digest"));
  EXPECT_TRUE(ours("http://127.0.0.1:3128/squid-internal-periodic/store_digest"));
  EXPECT_FALSE(ours("http://192.0.2.8:3128/squid-internal-periodic/store_digest"));
}

TEST_F(SquidDigestTarget, IPv6Listener) {
  proxy_ = {{{ip("::1"), 3128}}, {}};
  EXPECT_TRUE(ours("http://[::1]:3128/squid-internal-periodic/store_digest"));
  EXPECT_FALSE(ours("http://127.0.0.1:3128/squid-internal-periodic/store_digest"));
}

TEST(SquidDigestTargetPrefilter, OnlyTargetsWithThePath) {
  EXPECT_TRUE(may_be_squid_digest_target("http://h:1/squid-internal-periodic/store_digest"));
  EXPECT_TRUE(may_be_squid_digest_target("/squid-internal-periodic/store_digest"));
  EXPECT_FALSE(may_be_squid_digest_target("http://h:1/index.html"));
}

}  // namespace
}  // namespace sumcache::daemon
