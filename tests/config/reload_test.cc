#include "config/reload.h"

#include <gtest/gtest.h>

#include "config/default_config.h"
#include "config/load_config.h"

namespace sumcache::config {
namespace {

using Paths = std::vector<std::string>;

Config with(const char* json) { return parse_config(json, "next"); }

TEST(Reload, SameConfigChangesNothing) {
  Config c = default_config();
  EXPECT_EQ(changed_paths(c, c), Paths{});
  EXPECT_EQ(restart_required_changes(c, c), Paths{});
}

TEST(Reload, RulesLimitsAndLogVerbosityApplyLive) {
  Config running = with(R"({"peers": [{"id": "a", "host": "h"}]})");
  Config next = with(R"({
    "admin": {"token": "new", "allow": ["10.0.0.0/8"]},
    "forward": {"connect_ports": [443, 563], "allow_ports": ["443"]},
    "access": {"allow_clients": ["10.1.0.0/16"]},
    "limits": {"max_connections": 5, "client_idle_timeout_ms": 1000},
    "cache": {"heuristic_fraction": 0.2, "heuristic_max_ms": 1000, "targeted_fields": []},
    "log": {"level": "debug", "access_format": "combined"},
    "cluster": {"update_threshold_percent": 5, "update_max_interval_ms": 1000,
                "summary_expiry_ms": 2000, "peer_timeout_ms": 50, "store_peer_hits": false,
                "miss_policy": "owner"},
    "peers": [{"id": "a", "host": "h", "weight": 9}]
  })");
  EXPECT_EQ(changed_paths(running, next), (Paths{
                                              "$.access.allow_clients",
                                              "$.admin.allow",
                                              "$.admin.token",
                                              "$.cache.heuristic_fraction",
                                              "$.cache.heuristic_max_ms",
                                              "$.cache.targeted_fields",
                                              "$.cluster.miss_policy",
                                              "$.cluster.peer_timeout_ms",
                                              "$.cluster.store_peer_hits",
                                              "$.cluster.summary_expiry_ms",
                                              "$.cluster.update_max_interval_ms",
                                              "$.cluster.update_threshold_percent",
                                              "$.forward.allow_ports",
                                              "$.forward.connect_ports",
                                              "$.limits.client_idle_timeout_ms",
                                              "$.limits.max_connections",
                                              "$.log.access_format",
                                              "$.log.level",
                                              "$.peers[0].weight",
                                          }));
  EXPECT_EQ(restart_required_changes(running, next), Paths{});
}

TEST(Reload, ReportsEachFieldThatNeedsARestart) {
  struct Case {
    const char* json;
    Paths paths;
  };
  const Case cases[] = {
      {R"({"node": {"id": "other"}})", {"$.node.id"}},
      {R"({"workers": 4})", {"$.workers"}},
      {R"({"listen": [{"port": 8080}]})", {"$.listen[0].port"}},
      {R"({"listen": [{"port": 3128}, {"port": 8080}]})", {"$.listen"}},
      {R"({"admin": {"port": 9000}})", {"$.admin.port"}},
      {R"({"cache": {"disk": {"path": "/srv/cache"}}})", {"$.cache.disk.path"}},
      {R"({"cache": {"memory": {"max_bytes": "1GiB"}}})", {"$.cache.memory.max_bytes"}},
      {R"({"cache": {"shards": 8}})", {"$.cache.shards"}},
      {R"({"filter": {"hashes": 5}})", {"$.filter.hashes"}},
      {R"({"log": {"access_log": "/var/log/a"}})", {"$.log.access_log"}},
      {R"({"cluster": {"sharing": "icp"}})", {"$.cluster.sharing"}},
      {R"({"peers": [{"id": "a", "host": "h"}]})", {"$.peers"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(restart_required_changes(default_config(), with(c.json)), c.paths) << c.json;
  }
}

TEST(Reload, APeersAddressNeedsARestartItsWeightDoesNot) {
  Config running = with(R"({"peers": [{"id": "a", "host": "h1"}]})");
  Config next = with(R"({"peers": [{"id": "a", "host": "h2", "peer_port": 4000, "weight": 2}]})");
  EXPECT_EQ(changed_paths(running, next),
            (Paths{"$.peers[0].host", "$.peers[0].peer_port", "$.peers[0].weight"}));
  EXPECT_EQ(restart_required_changes(running, next),
            (Paths{"$.peers[0].host", "$.peers[0].peer_port"}));
}

TEST(Reload, InSummaryModeThePeersAndTheGraceApplyLive) {
  // Live membership (docs/peers.md): the peer service applies the list's changes.
  const char* base = R"({"cluster": {"sharing": "summary", "secret": "0123456789abcdef"},
                         "peers": [{"id": "a", "host": "h1"}]})";
  Config running = with(base);
  Config next = with(R"({"cluster": {"sharing": "summary", "secret": "0123456789abcdef",
                                     "peer_grace_ms": 1000},
                         "peers": [{"id": "a", "host": "h2"}, {"id": "b", "host": "h3"}]})");
  EXPECT_EQ(changed_paths(running, next), (Paths{"$.cluster.peer_grace_ms", "$.peers"}));
  EXPECT_EQ(restart_required_changes(running, next), Paths{});
  // Discovery's settings still need a restart.
  Config found = with(R"({"cluster": {"sharing": "summary", "secret": "0123456789abcdef",
                                      "discovery": {"name": "peers.example"}},
                          "peers": [{"id": "a", "host": "h1"}]})");
  EXPECT_EQ(restart_required_changes(running, found), Paths{"$.cluster.discovery.name"});
}

TEST(Reload, ModeChangeNeedsARestart) {
  Config next = with(R"({"mode": "reverse", "reverse": {"origin": "http://127.0.0.1:8080"}})");
  EXPECT_EQ(restart_required_changes(default_config(), next),
            (Paths{"$.forward", "$.mode", "$.reverse"}));
}

TEST(Reload, SeesSecretsThatChangedInTheirFiles) {
  Config running = with(R"({"admin": {"token_file": "t"},
                            "cluster": {"sharing": "summary", "secret_file": "s"}})");
  running.admin.token = "old token";
  running.cluster.secret = "old secret, 16+ bytes";
  Config next = running;
  next.admin.token = "new token";
  next.cluster.secret = "new secret, 16+ bytes";
  EXPECT_EQ(changed_paths(running, next), (Paths{"$.admin.token", "$.cluster.secret"}));
  // Peers hold the cluster secret too: it changes with a coordinated restart.
  EXPECT_EQ(restart_required_changes(running, next), Paths{"$.cluster.secret"});
}

}  // namespace
}  // namespace sumcache::config
