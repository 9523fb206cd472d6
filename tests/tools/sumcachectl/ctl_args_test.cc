#include "tools/sumcachectl/ctl_args.h"

#include <gtest/gtest.h>

namespace sumcache::tools {
namespace {

ParsedArgs parse(std::vector<std::string> args) { return parse_args(args); }

AdminAddress http(const std::string& host, std::uint16_t port) { return {host, port, false, ""}; }

AdminAddress https(const std::string& host, std::uint16_t port, const std::string& name) {
  return {host, port, true, name};
}

TEST(CtlArgs, StatsTalksToTheDefaultAdminAddressWithoutAToken) {
  const auto p = parse({"stats"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.command.verb, Verb::stats);
  EXPECT_EQ(p.command.admin, http("127.0.0.1", 3129));
  EXPECT_EQ(p.command.token, "");
  EXPECT_FALSE(p.command.json);
}

TEST(CtlArgs, OptionsMayComeBeforeOrAfterTheCommand) {
  const auto p = parse({"peers", "--json", "--admin", "10.1.2.3:4000", "--timeout-ms", "250"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.command.verb, Verb::peers);
  EXPECT_TRUE(p.command.json);
  EXPECT_EQ(p.command.admin, http("10.1.2.3", 4000));
  EXPECT_EQ(p.command.timeout, std::chrono::milliseconds(250));
}

TEST(CtlArgs, AdminAddressTakesIpLiteralsBracketedIpv6AndLocalhost) {
  AdminAddress a;
  ASSERT_TRUE(parse_admin_address("[::1]:3200", a));
  EXPECT_EQ(a, http("::1", 3200));
  ASSERT_TRUE(parse_admin_address("[::1]", a));
  EXPECT_EQ(a, http("::1", 3129));
  ASSERT_TRUE(parse_admin_address("127.0.0.2", a));
  EXPECT_EQ(a, http("127.0.0.2", 3129));
  ASSERT_TRUE(parse_admin_address("localhost:9", a));
  EXPECT_EQ(a, http("127.0.0.1", 9));
}

TEST(CtlArgs, AdminAddressRefusesNamesBadPortsAndBareIpv6) {
  AdminAddress a;
  for (const char* bad : {"cache.example:3129", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:",
                          "127.0.0.1:x", "::1", "[::1", "[127.0.0.1]:1", "[::1]x", ""}) {
    EXPECT_FALSE(parse_admin_address(bad, a)) << bad;
  }
  EXPECT_NE(parse({"--admin", "cache.example:3129", "stats"}).error, "");
}

TEST(CtlArgs, AdminAddressTakesHttpAndHttpsSchemes) {
  AdminAddress a;
  ASSERT_TRUE(parse_admin_address("http://127.0.0.1:3200", a));
  EXPECT_EQ(a, http("127.0.0.1", 3200));
  ASSERT_TRUE(parse_admin_address("https://127.0.0.1:3200", a));
  EXPECT_EQ(a, https("127.0.0.1", 3200, "127.0.0.1"));
  // The certificate must name the host as written; the connection goes to its address.
  ASSERT_TRUE(parse_admin_address("https://localhost:3200", a));
  EXPECT_EQ(a, https("127.0.0.1", 3200, "localhost"));
  ASSERT_TRUE(parse_admin_address("https://[::1]:3200", a));
  EXPECT_EQ(a, https("::1", 3200, "::1"));
  ASSERT_TRUE(parse_admin_address("https://127.0.0.1", a));
  EXPECT_EQ(a, https("127.0.0.1", 3129, "127.0.0.1"));
  for (const char* bad : {"https://cache.example:3129", "https://", "ftp://127.0.0.1:1",
                          "https://127.0.0.1:1/", "https:127.0.0.1:1", "HTTPS://127.0.0.1:1"}) {
    EXPECT_FALSE(parse_admin_address(bad, a)) << bad;
  }
}

TEST(CtlArgs, CacertGoesWithAnHttpsAdmin) {
  const auto p =
      parse({"--cacert", "/etc/sumcache/ca.pem", "--admin", "https://localhost:3200", "stats"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.command.cacert, "/etc/sumcache/ca.pem");
  EXPECT_EQ(p.command.admin, https("127.0.0.1", 3200, "localhost"));
  // Without --cacert: the system store, which is the default, not an error.
  EXPECT_EQ(parse({"--admin", "https://127.0.0.1:3200", "stats"}).error, "");
  EXPECT_EQ(parse({"--admin", "https://127.0.0.1:3200", "stats"}).command.cacert, "");
  EXPECT_NE(parse({"--cacert", "ca.pem", "stats"}).error, "");
  EXPECT_NE(parse({"--cacert", "ca.pem", "--admin", "http://127.0.0.1:3200", "stats"}).error, "");
  EXPECT_NE(parse({"--admin", "https://127.0.0.1:3200", "--cacert", "", "stats"}).error, "");
  EXPECT_NE(parse({"--admin", "https://127.0.0.1:3200", "stats", "--cacert"}).error, "");
}

TEST(CtlArgs, PeerAddTakesAnIdAHostAndItsPorts) {
  const auto p = parse({"--token", "t", "peer", "add", "node-d", "10.0.0.4", "--http-port", "8128",
                        "--peer-port", "8130", "--weight", "3"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.command.verb, Verb::peer_add);
  EXPECT_EQ(p.command.peer_id, "node-d");
  EXPECT_EQ(p.command.peer_host, "10.0.0.4");
  EXPECT_EQ(p.command.http_port, 8128U);
  EXPECT_EQ(p.command.peer_port, 8130U);
  EXPECT_EQ(p.command.icp_port, 0U);  // the daemon's default
  EXPECT_EQ(p.command.weight, 3U);
  EXPECT_NE(parse({"peer", "add", "node-d"}).error, "");
  EXPECT_NE(parse({"peer", "add"}).error, "");
  EXPECT_NE(parse({"peer"}).error, "");
  EXPECT_NE(parse({"peer", "rename", "x"}).error, "");
  EXPECT_NE(parse({"peer", "add", "d", "h", "--http-port", "0"}).error, "");
  EXPECT_NE(parse({"peer", "add", "d", "h", "--weight", "101"}).error, "");
  EXPECT_NE(parse({"peer", "add", "d", "h", "extra"}).error, "");
}

TEST(CtlArgs, PeerRemoveTakesAnIdAlone) {
  const auto p = parse({"peer", "remove", "node-d"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.command.verb, Verb::peer_remove);
  EXPECT_EQ(p.command.peer_id, "node-d");
  EXPECT_NE(parse({"peer", "remove"}).error, "");
  EXPECT_NE(parse({"peer", "remove", "d", "h"}).error, "");
  EXPECT_NE(parse({"peer", "remove", "d", "--weight", "2"}).error, "");
  EXPECT_NE(parse({"stats", "--http-port", "1"}).error, "");
}

TEST(CtlArgs, PurgeTakesOneAbsoluteUrlAndAToken) {
  const auto p = parse({"--token-file", "/etc/sumcache/token", "purge", "http://a.example/x?y=1"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.command.verb, Verb::purge);
  EXPECT_EQ(p.command.url, "http://a.example/x?y=1");
  EXPECT_EQ(p.command.token_file, "/etc/sumcache/token");
  EXPECT_NE(parse({"purge"}).error, "");
  EXPECT_NE(parse({"purge", "/x"}).error, "");
  EXPECT_NE(parse({"purge", "http://a/x", "http://a/y"}).error, "");
}

TEST(CtlArgs, PurgeTakesATagOrAPrefixInsteadOfAUrl) {
  const auto tag = parse({"purge", "--tag", "product-42"});
  ASSERT_EQ(tag.error, "");
  EXPECT_EQ(tag.command.tag, "product-42");
  const auto prefix = parse({"purge", "--prefix", "http://a.example/static/"});
  ASSERT_EQ(prefix.error, "");
  EXPECT_EQ(prefix.command.prefix, "http://a.example/static/");
  EXPECT_NE(parse({"purge", "--tag", "t", "http://a/x"}).error, "");
  EXPECT_NE(parse({"purge", "--tag", "t", "--prefix", "http://a/"}).error, "");
  EXPECT_NE(parse({"purge", "--prefix", "/static/"}).error, "");
  EXPECT_NE(parse({"purge", "--tag", ""}).error, "");
  EXPECT_NE(parse({"stats", "--tag", "t"}).error, "");
}

TEST(CtlArgs, TokenAndTokenFileExcludeEachOther) {
  EXPECT_NE(parse({"--token", "t", "--token-file", "f", "stats"}).error, "");
  EXPECT_NE(parse({"--token", "", "stats"}).error, "");
}

TEST(CtlArgs, BloomCalcNeedsEntriesAndExactlyOneTarget) {
  const auto p =
      parse({"bloom-calc", "--entries", "81920", "--bits-per-entry", "16", "--hashes", "4"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.command.verb, Verb::bloom_calc);
  EXPECT_EQ(p.command.entries, 81920U);
  EXPECT_EQ(p.command.bits_per_entry, 16.0);
  EXPECT_EQ(p.command.hashes, 4U);
  EXPECT_EQ(parse({"bloom-calc", "--entries", "10", "--fpr", "1e-3"}).command.fpr, 1e-3);
  EXPECT_NE(parse({"bloom-calc", "--entries", "10"}).error, "");
  EXPECT_NE(parse({"bloom-calc", "--fpr", "0.01"}).error, "");
  EXPECT_NE(
      parse({"bloom-calc", "--entries", "10", "--fpr", "0.01", "--bits-per-entry", "8"}).error, "");
}

TEST(CtlArgs, BloomCalcRefusesOutOfRangeNumbers) {
  for (const char* fpr : {"0", "1", "-0.1", "nan", "0.01x", ""}) {
    EXPECT_NE(parse({"bloom-calc", "--entries", "10", "--fpr", fpr}).error, "") << fpr;
  }
  EXPECT_NE(parse({"bloom-calc", "--entries", "0", "--fpr", "0.01"}).error, "");
  EXPECT_NE(parse({"bloom-calc", "--entries", "-5", "--fpr", "0.01"}).error, "");
  EXPECT_NE(parse({"bloom-calc", "--entries", "10", "--fpr", "0.01", "--hashes", "33"}).error, "");
}

TEST(CtlArgs, BloomOptionsBelongToBloomCalcOnly) {
  EXPECT_NE(parse({"stats", "--entries", "10"}).error, "");
}

TEST(CtlArgs, UnknownCommandsAndOptionsAndMissingValuesAreUsageErrors) {
  EXPECT_NE(parse({}).error, "");
  EXPECT_NE(parse({"statz"}).error, "");
  EXPECT_NE(parse({"stats", "--verbose"}).error, "");
  EXPECT_NE(parse({"stats", "--admin"}).error, "");
  EXPECT_NE(parse({"stats", "--timeout-ms", "0"}).error, "");
  EXPECT_EQ(parse({"--help"}).command.verb, Verb::help);
  EXPECT_EQ(parse({"--help"}).error, "");
}

}  // namespace
}  // namespace sumcache::tools
