// cluster.transport and cluster.redis (config/read_redis_section.cc, the
// redis rules of config/cross_checks.cc): every field read, every error with
// its JSON path, the writer's round trip and redaction, reload, the example.

#include <gtest/gtest.h>

#include <filesystem>
#include <utility>

#include "config/config_json.h"
#include "config/default_config.h"
#include "config/load_config.h"
#include "config/reload.h"

namespace sumcache::config {
namespace {

using std::chrono::milliseconds;

// Every field of cluster.redis away from its default.
constexpr const char* kEveryRedisField = R"({
  "cluster": {
    "sharing": "summary", "secret": "a cluster secret!", "transport": "redis",
    "peer_listen": {"address": "0.0.0.0", "port": 4000},
    "redis": {
      "servers": [{"address": "10.0.0.5"}, {"address": "redis-2.example", "port": 6380},
                  {"address": "::1", "port": 7000}],
      "username": "sumcache", "password": "redis pass word",
      "tls": true, "ca_file": "/etc/redis/ca.pem", "cert_file": "client.pem",
      "key_file": "client.key", "server_name": "redis.example",
      "key_prefix": "edge{eu}", "stream_length": 1000, "heartbeat_ms": 500,
      "member_expiry_ms": 1001, "connect_timeout_ms": 250, "command_timeout_ms": 750,
      "block_ms": 2000, "advertise_host": "edge-7.example"
    }
  }
})";

TEST(RedisConfig, DefaultsAreMeshAndTheDocumentedValues) {
  const Config c = default_config();
  EXPECT_EQ(c.cluster.transport, ClusterTransport::mesh);
  const RedisConfig& r = c.cluster.redis;
  EXPECT_TRUE(r.servers.empty());
  EXPECT_EQ(r.username, "");
  EXPECT_EQ(r.password, "");
  EXPECT_EQ(r.password_file, "");
  EXPECT_FALSE(r.tls);
  EXPECT_EQ(r.key_prefix, "sumcache");
  EXPECT_EQ(r.stream_length, 256U);
  EXPECT_EQ(r.heartbeat_ms, milliseconds(1000));
  EXPECT_EQ(r.member_expiry_ms, milliseconds(5000));
  EXPECT_EQ(r.connect_timeout_ms, milliseconds(1000));
  EXPECT_EQ(r.command_timeout_ms, milliseconds(1000));
  EXPECT_EQ(r.block_ms, milliseconds(1000));
  EXPECT_EQ(r.advertise_host, "");
  EXPECT_EQ(to_json(c, false)["cluster"]["transport"], "mesh");
}

TEST(RedisConfig, ReadsEveryField) {
  const Config c = parse_config(kEveryRedisField, "t");
  EXPECT_EQ(c.cluster.transport, ClusterTransport::redis);
  const RedisConfig& r = c.cluster.redis;
  EXPECT_EQ(r.servers,
            (std::vector<Endpoint>{{"10.0.0.5", 6379}, {"redis-2.example", 6380}, {"::1", 7000}}));
  EXPECT_EQ(r.username, "sumcache");
  EXPECT_EQ(r.password, "redis pass word");
  EXPECT_EQ(r.password_file, "");
  EXPECT_TRUE(r.tls);
  EXPECT_EQ(r.ca_file, "/etc/redis/ca.pem");
  EXPECT_EQ(r.cert_file, "client.pem");
  EXPECT_EQ(r.key_file, "client.key");
  EXPECT_EQ(r.server_name, "redis.example");
  EXPECT_EQ(r.key_prefix, "edge{eu}");
  EXPECT_EQ(r.stream_length, 1000U);
  EXPECT_EQ(r.heartbeat_ms, milliseconds(500));
  EXPECT_EQ(r.member_expiry_ms, milliseconds(1001));
  EXPECT_EQ(r.connect_timeout_ms, milliseconds(250));
  EXPECT_EQ(r.command_timeout_ms, milliseconds(750));
  EXPECT_EQ(r.block_ms, milliseconds(2000));
  EXPECT_EQ(r.advertise_host, "edge-7.example");
}

TEST(RedisConfig, RoundTripsThroughTheWriter) {
  const Config c = parse_config(kEveryRedisField, "t");
  EXPECT_EQ(parse_config(to_json(c, false).dump(), "t"), c);
  Config from_file = parse_config(R"({"cluster": {"sharing": "summary",
      "secret": "0123456789abcdef", "transport": "redis",
      "redis": {"servers": [{"address": "127.0.0.1"}], "password_file": "redis.pass"}}})",
                                  "t");
  EXPECT_EQ(parse_config(to_json(from_file, false).dump(), "t"), from_file);
}

TEST(RedisConfig, ThePasswordIsRedactedAndNeverShownFromAFile) {
  const Config c = parse_config(kEveryRedisField, "t");
  EXPECT_EQ(to_json(c, false)["cluster"]["redis"]["password"], "redis pass word");
  const auto redacted = to_json(c, true);
  EXPECT_EQ(redacted["cluster"]["redis"]["password"], "<redacted>");
  EXPECT_EQ(redacted.dump().find("redis pass word"), std::string::npos);

  Config from_file = parse_config(
      R"({"cluster": {"redis": {"username": "u", "password_file": "redis.pass"}}})", "t");
  from_file.cluster.redis.password = "from-the-file";  // as load_config_file would set it
  for (bool redact : {false, true}) {
    const auto j = to_json(from_file, redact)["cluster"]["redis"];
    EXPECT_EQ(j["password_file"], "redis.pass");
    EXPECT_FALSE(j.contains("password"));
  }
}

TEST(RedisConfig, TheDigestLeavesThePasswordOut) {
  const Config a = parse_config(kEveryRedisField, "t");
  Config b = a;
  b.cluster.redis.password = "another password";
  EXPECT_EQ(config_digest(a), config_digest(b));
  b.cluster.redis.stream_length += 1;
  EXPECT_NE(config_digest(a), config_digest(b));
}

TEST(RedisConfig, EverySettingNeedsARestart) {
  const Config running = parse_config(kEveryRedisField, "running");
  // Each field on its own: the path that changed is the one reported.
  using Text = std::string RedisConfig::*;
  for (const auto& [name, field] :
       {std::pair<const char*, Text>{"username", &RedisConfig::username},
        {"password", &RedisConfig::password},
        {"server_name", &RedisConfig::server_name},
        {"key_prefix", &RedisConfig::key_prefix},
        {"advertise_host", &RedisConfig::advertise_host}}) {
    Config next = running;
    next.cluster.redis.*field += "x";
    EXPECT_EQ(restart_required_changes(running, next),
              std::vector<std::string>{std::string("$.cluster.redis.") + name});
  }
  using Duration = milliseconds RedisConfig::*;
  for (const auto& [name, field] :
       {std::pair<const char*, Duration>{"heartbeat_ms", &RedisConfig::heartbeat_ms},
        {"member_expiry_ms", &RedisConfig::member_expiry_ms},
        {"connect_timeout_ms", &RedisConfig::connect_timeout_ms},
        {"command_timeout_ms", &RedisConfig::command_timeout_ms},
        {"block_ms", &RedisConfig::block_ms}}) {
    Config next = running;
    next.cluster.redis.*field += milliseconds(1);
    EXPECT_EQ(restart_required_changes(running, next),
              std::vector<std::string>{std::string("$.cluster.redis.") + name});
  }
  Config next = running;
  next.cluster.redis.servers[1].port = 6381;
  next.cluster.redis.stream_length = 16;
  next.cluster.redis.tls = false;
  next.cluster.transport = ClusterTransport::mesh;
  EXPECT_EQ(
      restart_required_changes(running, next),
      (std::vector<std::string>{"$.cluster.redis.servers[1].port", "$.cluster.redis.stream_length",
                                "$.cluster.redis.tls", "$.cluster.transport"}));
  // What a reload leaves running is the old setting, whole.
  const Config merged = apply_live(running, next);
  EXPECT_EQ(merged.cluster.redis, running.cluster.redis);
  EXPECT_EQ(merged.cluster.transport, ClusterTransport::redis);
}

TEST(RedisConfig, APasswordChangedInItsFileNeedsARestart) {
  Config running = parse_config(R"({"cluster": {"sharing": "summary",
      "secret": "0123456789abcdef", "transport": "redis",
      "redis": {"servers": [{"address": "127.0.0.1"}], "password_file": "redis.pass"}}})",
                                "running");
  running.cluster.redis.password = "old password";  // as load_config_file would set it
  Config next = running;
  next.cluster.redis.password = "new password";
  EXPECT_EQ(restart_required_changes(running, next),
            std::vector<std::string>{"$.cluster.redis.password"});
}

struct BadRedis {
  const char* name;
  const char* cluster;  // fields of "cluster" besides sharing and secret
  const char* path;
  const char* reason;  // a part of ConfigError::reason()
  const char* sharing = "summary";
};

void PrintTo(const BadRedis& bad, std::ostream* out) { *out << bad.name; }  // NOLINT: gtest name

std::string cluster_json(const char* sharing, const std::string& fields) {
  return std::string(R"({"cluster": {"sharing": ")") + sharing +
         R"(", "secret": "0123456789abcdef", )" + fields + "}}";
}

class RedisConfigErrors : public testing::TestWithParam<BadRedis> {};

TEST_P(RedisConfigErrors, NameTheJsonPath) {
  const BadRedis& bad = GetParam();
  const std::string json = cluster_json(bad.sharing, bad.cluster);
  try {
    parse_config(json, "test.json");
    FAIL() << "accepted: " << json;
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), bad.path) << e.what();
    EXPECT_NE(e.reason().find(bad.reason), std::string::npos) << e.what();
  }
}

// A redis transport that passes every rule, for the cross checks to break one at a time.
#define REDIS_OK R"("transport": "redis", "redis": {"servers": [{"address": "127.0.0.1"}]})"

const BadRedis kBadRedis[] = {
    // cluster.transport.
    {"TransportUnknown", R"("transport": "kafka")", "$.cluster.transport",
     "must be one of \"mesh\", \"redis\" (got \"kafka\")"},
    {"TransportNotAString", R"("transport": 1)", "$.cluster.transport", "expected string"},
    // The section and its servers.
    {"RedisNotAnObject", R"("redis": [])", "$.cluster.redis", "expected object, got array"},
    {"RedisUnknownField", R"("redis": {"server": []})", "$.cluster.redis.server",
     "unknown field (did you mean \"servers\"?)"},
    {"ServersNotAnArray", R"("redis": {"servers": {"address": "r"}})", "$.cluster.redis.servers",
     "expected array, got object"},
    {"ServerNotAnObject", R"("redis": {"servers": ["127.0.0.1:6379"]})",
     "$.cluster.redis.servers[0]", "expected object, got string"},
    {"ServerWithoutAddress", R"("redis": {"servers": [{"port": 6380}]})",
     "$.cluster.redis.servers[0].address", "required"},
    {"ServerAddressNotAHost", R"("redis": {"servers": [{"address": "r1"}, {"address": "r 2"}]})",
     "$.cluster.redis.servers[1].address", "expected an IP literal or a DNS host name"},
    {"ServerAddressWithPort", R"("redis": {"servers": [{"address": "r1:6379"}]})",
     "$.cluster.redis.servers[0].address", "expected an IP literal or a DNS host name"},
    {"ServerPortZero", R"("redis": {"servers": [{"address": "r1", "port": 0}]})",
     "$.cluster.redis.servers[0].port", "must be between 1 and 65535 (got 0)"},
    {"ServerPortTooLarge", R"("redis": {"servers": [{"address": "r1", "port": 65536}]})",
     "$.cluster.redis.servers[0].port", "must be between 1 and 65535 (got 65536)"},
    {"ServerUnknownField", R"("redis": {"servers": [{"address": "r1", "db": 2}]})",
     "$.cluster.redis.servers[0].db", "unknown field"},
    {"ServerTwice",
     R"("redis": {"servers": [{"address": "10.0.0.1"}, {"address": "10.0.0.2"},
                               {"address": "10.0.0.1", "port": 6379}]})",
     "$.cluster.redis.servers[2].address", "same address and port as $.cluster.redis.servers[0]"},
    {"ServerTwiceInAnotherSpelling",
     R"("redis": {"servers": [{"address": "::1"}, {"address": "0:0::1"}]})",
     "$.cluster.redis.servers[1].address", "same address and port as $.cluster.redis.servers[0]"},
    {"ServerNameTwiceInAnotherCase",
     R"("redis": {"servers": [{"address": "Redis.example"}, {"address": "redis.EXAMPLE"}]})",
     "$.cluster.redis.servers[1].address", "same address and port"},
    // Credentials.
    {"PasswordAndPasswordFile", R"("redis": {"password": "p", "password_file": "f"})",
     "$.cluster.redis.password_file", "password and password_file both given"},
    {"PasswordNotAString", R"("redis": {"password": 123})", "$.cluster.redis.password",
     "expected string, got integer"},
    {"UsernameWithoutPassword", R"("redis": {"username": "sumcache"})", "$.cluster.redis.username",
     "needs password or password_file"},
    {"UsernameWithSpace", R"("redis": {"username": "sum cache", "password": "p"})",
     "$.cluster.redis.username", "printable ASCII characters without spaces"},
    // TLS.
    {"TlsNotABoolean", R"("redis": {"tls": "yes"})", "$.cluster.redis.tls",
     "expected boolean, got string"},
    {"CaFileWithoutTls", R"("redis": {"ca_file": "ca.pem"})", "$.cluster.redis.ca_file",
     "needs tls true"},
    {"CertFileWithoutTls", R"("redis": {"cert_file": "c", "key_file": "k"})",
     "$.cluster.redis.cert_file", "needs tls true"},
    {"KeyFileWithoutTls", R"("redis": {"key_file": "k"})", "$.cluster.redis.key_file",
     "needs tls true"},
    {"ServerNameWithoutTls", R"("redis": {"server_name": "redis.example"})",
     "$.cluster.redis.server_name", "needs tls true"},
    {"CertWithoutKey", R"("redis": {"tls": true, "cert_file": "c"})", "$.cluster.redis.key_file",
     "cert_file and key_file go together"},
    {"KeyWithoutCert", R"("redis": {"tls": true, "key_file": "k"})", "$.cluster.redis.cert_file",
     "cert_file and key_file go together"},
    {"ServerNameNotAHost", R"("redis": {"tls": true, "server_name": "redis example"})",
     "$.cluster.redis.server_name", "expected an IP literal or a DNS host name"},
    // Keys.
    {"KeyPrefixEmpty", R"("redis": {"key_prefix": ""})", "$.cluster.redis.key_prefix",
     "must be 1 to 64 printable ASCII characters without spaces"},
    {"KeyPrefixWithSpace", R"("redis": {"key_prefix": "sum cache"})", "$.cluster.redis.key_prefix",
     "without spaces"},
    {"KeyPrefixWithControl", R"("redis": {"key_prefix": "sum\tcache"})",
     "$.cluster.redis.key_prefix", "printable"},
    {"KeyPrefixNotAscii", R"("redis": {"key_prefix": "sumcach\u00e9"})",
     "$.cluster.redis.key_prefix", "printable ASCII"},
    {"KeyPrefixTooLong",
     R"("redis": {"key_prefix": "0123456789012345678901234567890123456789012345678901234567890123x"})",
     "$.cluster.redis.key_prefix", "must be 1 to 64"},
    {"StreamLengthTooShort", R"("redis": {"stream_length": 15})", "$.cluster.redis.stream_length",
     "must be between 16 and 1000000 (got 15)"},
    {"StreamLengthTooLong", R"("redis": {"stream_length": 1000001})",
     "$.cluster.redis.stream_length", "must be between 16 and 1000000 (got 1000001)"},
    {"StreamLengthNotAnInteger", R"("redis": {"stream_length": 256.5})",
     "$.cluster.redis.stream_length", "expected integer, got number"},
    // Times.
    {"HeartbeatTooShort", R"("redis": {"heartbeat_ms": 99})", "$.cluster.redis.heartbeat_ms",
     "must be between 100 and 60000 (got 99)"},
    {"HeartbeatTooLong", R"("redis": {"heartbeat_ms": 60001, "member_expiry_ms": 200000})",
     "$.cluster.redis.heartbeat_ms", "must be between 100 and 60000 (got 60001)"},
    {"MemberExpiryTooLong", R"("redis": {"member_expiry_ms": 3600001})",
     "$.cluster.redis.member_expiry_ms", "must be between 200 and 3600000 (got 3600001)"},
    {"MemberExpiryNotAboveTwoHeartbeats",
     R"("redis": {"heartbeat_ms": 1000, "member_expiry_ms": 2000})",
     "$.cluster.redis.member_expiry_ms", "must be greater than 2 x heartbeat_ms (2000)"},
    {"LongHeartbeatAgainstTheDefaultExpiry", R"("redis": {"heartbeat_ms": 3000})",
     "$.cluster.redis.member_expiry_ms", "must be greater than 2 x heartbeat_ms (6000)"},
    {"ConnectTimeoutZero", R"("redis": {"connect_timeout_ms": 0})",
     "$.cluster.redis.connect_timeout_ms", "must be between 1 and 60000 (got 0)"},
    {"CommandTimeoutTooLong", R"("redis": {"command_timeout_ms": 60001})",
     "$.cluster.redis.command_timeout_ms", "must be between 1 and 60000 (got 60001)"},
    {"BlockZeroWouldWaitForever", R"("redis": {"block_ms": 0})", "$.cluster.redis.block_ms",
     "must be between 10 and 60000 (got 0)"},
    {"BlockTooLong", R"("redis": {"block_ms": 60001})", "$.cluster.redis.block_ms",
     "must be between 10 and 60000 (got 60001)"},
    {"AdvertiseHostNotAHost", R"("redis": {"advertise_host": "-edge-"})",
     "$.cluster.redis.advertise_host", "expected an IP literal or a DNS host name"},
    // Across sections.
    {"RedisWithIcp", REDIS_OK, "$.cluster.transport",
     "\"redis\" needs sharing \"summary\": Redis carries summaries (got sharing \"icp\")", "icp"},
    {"RedisWithoutSharing", REDIS_OK, "$.cluster.transport", "(got sharing \"none\")", "none"},
    {"RedisWithoutServers", R"("transport": "redis")", "$.cluster.redis.servers",
     "at least one server with transport \"redis\""},
    {"RedisWithNoServers", R"("transport": "redis", "redis": {"servers": []})",
     "$.cluster.redis.servers", "at least one server"},
    {"RedisOnWildcardPeerListen",
     REDIS_OK R"(, "peer_listen": {"address": "0.0.0.0", "port": 4000})",
     "$.cluster.redis.advertise_host",
     "required when peer_listen's address is a wildcard (0.0.0.0): peers reach this node"},
    {"RedisOnIpv6WildcardPeerListen", REDIS_OK R"(, "peer_listen": {"address": "::"})",
     "$.cluster.redis.advertise_host", "wildcard (::)"},
    {"RedisWithDiscovery", REDIS_OK R"(, "discovery": {"name": "peers.example"})",
     "$.cluster.discovery.name", "not with transport \"redis\": the members come from Redis"},
};

#undef REDIS_OK

INSTANTIATE_TEST_SUITE_P(Config, RedisConfigErrors, testing::ValuesIn(kBadRedis),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

std::string servers_json(std::size_t count) {
  std::string servers;
  for (std::size_t i = 0; i < count; ++i) {
    servers += (i == 0 ? "" : ", ") + std::string(R"({"address": "127.0.0.1", "port": )") +
               std::to_string(7000 + i) + "}";
  }
  return R"("transport": "redis", "redis": {"servers": [)" + servers + "]}";
}

TEST(RedisConfigErrors, AtMost64Servers) {
  EXPECT_EQ(
      parse_config(cluster_json("summary", servers_json(64)), "t").cluster.redis.servers.size(),
      64U);
  try {
    parse_config(cluster_json("summary", servers_json(65)), "t");
    FAIL() << "accepted 65 servers";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "$.cluster.redis.servers[64]");
    EXPECT_EQ(e.reason(), "at most 64 servers");
  }
}

// Near misses of the rules above that must stay valid.
TEST(RedisConfigErrors, AcceptsWhatOnlyLooksLikeAConflict) {
  const char* valid[] = {
      // A redis section is read (and checked) with any transport; mesh ignores it.
      R"("redis": {"servers": [{"address": "10.0.0.5"}], "key_prefix": "x"})",
      // No peers, and peer_listen's default loopback address is what peers are told.
      R"("transport": "redis", "redis": {"servers": [{"address": "redis.example"}]})",
      // A wildcard listener with an advertised host.
      R"("transport": "redis", "peer_listen": {"address": "::"},
         "redis": {"servers": [{"address": "::1"}], "advertise_host": "edge-1.example"})",
      // One address on two ports, two names on one port.
      R"("transport": "redis", "redis": {"servers": [{"address": "127.0.0.1"},
         {"address": "127.0.0.1", "port": 6380}, {"address": "a.example"},
         {"address": "b.example"}]})",
      // TLS with the system store and no client certificate.
      R"("transport": "redis", "redis": {"servers": [{"address": "r"}], "tls": true})",
      // An ACL user whose password comes from a file; an empty inline password is none.
      R"("redis": {"username": "sumcache", "password": "", "password_file": "redis.pass"})",
      // The expiry just above two heartbeats, and every bound at its low end.
      R"("redis": {"heartbeat_ms": 100, "member_expiry_ms": 201, "stream_length": 16,
                   "block_ms": 10, "connect_timeout_ms": 1, "command_timeout_ms": 1})",
  };
  for (const char* fields : valid) {
    const std::string json = cluster_json("summary", fields);
    EXPECT_NO_THROW(parse_config(json, "t")) << json;
  }
  // Listed peers stay allowed: a Squid's digest is still fetched over HTTP.
  EXPECT_NO_THROW(parse_config(R"({"cluster": {"sharing": "summary",
      "secret": "0123456789abcdef", "transport": "redis",
      "redis": {"servers": [{"address": "127.0.0.1"}]}},
      "peers": [{"id": "squid-1", "host": "10.0.0.9", "protocol": "squid-digest"}]})",
                               "t"));
}

TEST(RedisConfig, TheRedisExampleIsAThreeNodeClusterWithoutPeerLists) {
  const std::filesystem::path dir = std::filesystem::path(SUMCACHE_CONFIG_EXAMPLES_DIR) / "redis-3";
  std::vector<std::string> ids;
  for (const char* name : {"node-a.json", "node-b.json", "node-c.json"}) {
    SCOPED_TRACE(name);
    const Config c = load_config_file(dir / name);
    EXPECT_EQ(c.cluster.sharing, Sharing::summary);
    EXPECT_EQ(c.cluster.transport, ClusterTransport::redis);
    EXPECT_EQ(c.cluster.redis.servers, (std::vector<Endpoint>{{"127.0.0.1", 6379}}));
    EXPECT_EQ(c.cluster.redis.key_prefix, "sumcache");
    EXPECT_EQ(c.cluster.secret, "example-cluster-secret-change-me-0123456789");
    EXPECT_TRUE(c.peers.empty());
    EXPECT_EQ(parse_config(to_json(c, false).dump(), "t").cluster.redis, c.cluster.redis);
    ids.push_back(c.node.id);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"node-a", "node-b", "node-c"}));
}

}  // namespace
}  // namespace sumcache::config
