#include "config/config_json.h"

#include <gtest/gtest.h>

#include "config/default_config.h"
#include "config/load_config.h"

namespace sumcache::config {
namespace {

// Every field away from its default, secrets inline.
constexpr const char* kCustom = R"({
  "node": {"id": "edge-7"}, "mode": "reverse", "workers": 3,
  "listen": [{"address": "10.0.0.7", "port": 80}, {"address": "::", "port": 8080}],
  "admin": {"enabled": true, "address": "::1", "port": 9000, "token": "admin-token",
            "allow": ["::1/128"]},
  "reverse": {"origin": "https://origin.example:8443", "host_header": "origin",
              "tls": {"verify": false, "ca_file": "/etc/ca.pem", "server_name": "o.example"}},
  "access": {"allow_clients": ["0.0.0.0/0"]},
  "limits": {"max_header_bytes": "32KiB", "max_body_bytes": 0, "max_connections": 7,
             "client_idle_timeout_ms": 1, "client_request_timeout_ms": 2,
             "upstream_connect_timeout_ms": 3, "upstream_first_byte_timeout_ms": 4,
             "upstream_io_timeout_ms": 5, "upstream_idle_timeout_ms": 6,
             "upstream_max_idle_per_origin": 0, "upstream_unsafe_reuse_ms": 0,
             "collapsed_wait_ms": 0,
             "drain_timeout_ms": 0, "dns_timeout_ms": 9},
  "cache": {"memory": {"max_bytes": "8MiB"},
            "disk": {"enabled": false, "path": "/d", "max_bytes": "2MiB", "fsync": true},
            "max_object_bytes": "4MiB", "heuristic_fraction": 0.05, "heuristic_max_ms": 0,
            "shards": 3, "targeted_fields": ["Sumcache-Cache-Control", "CDN-Cache-Control"]},
  "filter": {"bits_per_entry": 8.5, "hashes": 6, "target_fpr": 0.001, "objective": "wire",
             "expected_entries": 123,
             "avg_object_bytes": 100},
  "log": {"level": "trace", "access_log": "", "access_format": "combined",
          "error_log": "/var/log/e"},
  "cluster": {"sharing": "summary", "secret": "a cluster secret!",
              "peer_listen": {"address": "0.0.0.0", "port": 4000}, "icp_port": 4001,
              "object_listen": {"address": "0.0.0.0", "port": 4002},
              "update_threshold_percent": 10, "update_max_interval_ms": 100,
              "summary_expiry_ms": 1000, "peer_timeout_ms": 1, "store_peer_hits": false,
              "miss_policy": "owner",
              "tls": {"enabled": true, "cert_file": "c", "key_file": "k", "ca_file": "a"},
              "transport": "redis",
              "redis": {"servers": [{"address": "10.0.0.5", "port": 6380}],
                        "username": "u", "password": "redis password", "tls": true,
                        "ca_file": "rca", "cert_file": "rc", "key_file": "rk",
                        "server_name": "redis.example", "key_prefix": "edge",
                        "stream_length": 16, "heartbeat_ms": 100, "member_expiry_ms": 201,
                        "connect_timeout_ms": 1, "command_timeout_ms": 2, "block_ms": 10,
                        "advertise_host": "edge-7.example"}},
  "peers": [{"id": "p1", "host": "10.0.0.8", "http_port": 80, "peer_port": 4000,
             "icp_port": 4001, "object_port": 4002, "weight": 100,
             "icp_source_address": "10.0.0.9"},
            {"id": "p2", "host": "p2.example", "protocol": "squid-digest"}]
})";

TEST(ToJson, RoundTripsTheDefault) {
  Config c = default_config();
  EXPECT_EQ(parse_config(to_json(c, false).dump(), "t"), c);
}

TEST(ToJson, RoundTripsEveryField) {
  Config c = parse_config(kCustom, "custom");
  ASSERT_NE(c, default_config());
  EXPECT_EQ(parse_config(to_json(c, false).dump(), "t"), c);
}

TEST(ToJson, RoundTripsTheExamples) {
  for (const char* name : {"forward.json", "reverse.json"}) {
    Config c = load_config_file(std::filesystem::path(SUMCACHE_CONFIG_EXAMPLES_DIR) / name);
    EXPECT_EQ(parse_config(to_json(c, false).dump(), "t"), c) << name;
  }
}

TEST(ToJson, WritesSizesAndDurationsAsIntegers) {
  auto j = to_json(default_config(), false);
  EXPECT_EQ(j["cache"]["memory"]["max_bytes"], 268435456);
  EXPECT_EQ(j["limits"]["client_idle_timeout_ms"], 60000);
  EXPECT_EQ(j["forward"]["allow_ports"], nlohmann::json({"80", "443", "1025-65535"}));
  EXPECT_FALSE(j.contains("reverse"));
}

TEST(ToJson, WritesOnlyTheSectionOfTheMode) {
  auto j = to_json(parse_config(kCustom, "custom"), false);
  EXPECT_EQ(j["reverse"]["origin"], "https://origin.example:8443");
  EXPECT_FALSE(j.contains("forward"));
}

TEST(ToJson, RedactsInlineSecrets) {
  Config c = parse_config(kCustom, "custom");
  auto shown = to_json(c, false);
  EXPECT_EQ(shown["admin"]["token"], "admin-token");
  EXPECT_EQ(shown["cluster"]["secret"], "a cluster secret!");
  auto redacted = to_json(c, true);
  EXPECT_EQ(redacted["admin"]["token"], "<redacted>");
  EXPECT_EQ(redacted["cluster"]["secret"], "<redacted>");
  EXPECT_EQ(redacted.dump().find("admin-token"), std::string::npos);
  EXPECT_EQ(redacted.dump().find("cluster secret"), std::string::npos);
}

TEST(ToJson, ShowsThatNoSecretIsSet) {
  auto redacted = to_json(default_config(), true);
  EXPECT_EQ(redacted["admin"]["token"], "");
  EXPECT_EQ(redacted["cluster"]["secret"], "");
}

TEST(ToJson, NeverShowsASecretReadFromAFile) {
  Config c = parse_config(R"({"admin": {"token_file": "token"},
                              "cluster": {"sharing": "summary", "secret_file": "key"}})",
                          "t");
  c.admin.token = "from-the-file";  // as load_config_file would set them
  c.cluster.secret = "also-from-a-file";
  for (bool redact : {false, true}) {
    auto j = to_json(c, redact);
    EXPECT_EQ(j["admin"]["token_file"], "token");
    EXPECT_FALSE(j["admin"].contains("token"));
    EXPECT_EQ(j["cluster"]["secret_file"], "key");
    EXPECT_FALSE(j["cluster"].contains("secret"));
  }
}

TEST(ConfigDigest, IsSixteenHexDigitsAndPinned) {
  std::string digest = config_digest(default_config());
  EXPECT_EQ(digest.size(), 16U);
  EXPECT_EQ(digest.find_first_not_of("0123456789abcdef"), std::string::npos);
  // Pinned so that a change to the digest, which peers and dashboards compare, is deliberate:
  // it changes whenever a default or the JSON form changes.
  EXPECT_EQ(digest, "f935d8ecf9b768e0");
}

TEST(ConfigDigest, FollowsTheEffectiveConfig) {
  Config a = default_config();
  Config b = parse_config(default_config_json(), "other source");
  EXPECT_EQ(config_digest(a), config_digest(b));
  b.limits.max_connections += 1;
  EXPECT_NE(config_digest(a), config_digest(b));
}

TEST(ConfigDigest, LeavesSecretValuesOut) {
  Config a = parse_config(kCustom, "custom");
  Config b = a;
  b.admin.token = "another token";
  b.cluster.secret = "another cluster secret";
  b.cluster.redis.password = "another redis password";
  EXPECT_EQ(config_digest(a), config_digest(b));
}

}  // namespace
}  // namespace sumcache::config
