// Live membership (docs/peers.md): a fourth node joins a running cluster of
// three by SIGHUP, by the admin's POST /peers and by discovery through a hosts
// file; it routes misses to its peers and they to it within about a second;
// removed again, no request goes to it and nothing of it stays in /peers.
// With a static list, an unknown node with the right secret stays refused.

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/daemon/integration/cluster_fixture.h"

namespace sumcache::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

class ClusterMembership : public ClusterTest {
 protected:
  json peers_of(std::size_t node) {
    return json::parse(admin(node, "/peers").body, nullptr, false);
  }
  const json* peer_entry(const json& peers, const std::string& id) {
    if (!peers.is_object() || !peers.contains("peers")) return nullptr;
    for (const auto& p : peers["peers"]) {
      if (p.value("id", "") == id) return &p;
    }
    return nullptr;
  }
  // Waits until `node` holds a summary of `peer`: the time it took, or nullopt after `limit`.
  std::optional<Clock::duration> wait_for_summary(std::size_t node, std::size_t peer,
                                                  Clock::duration limit = 10s) {
    const auto start = Clock::now();
    while (Clock::now() - start < limit) {
      const json peers = peers_of(node);
      if (const json* p = peer_entry(peers, nodes_[peer].id);
          p != nullptr && p->value("has_summary", false)) {
        return Clock::now() - start;
      }
      std::this_thread::sleep_for(10ms);
    }
    ADD_FAILURE() << nodes_[node].id << " holds no summary of " << nodes_[peer].id << ":\n"
                  << admin(node, "/peers").body << "\n"
                  << log_of(node);
    return std::nullopt;
  }
  // Waits until node's log holds `needle` (the peer thread applies a reload
  // just after the reload line): false after 5 s.
  bool wait_for_log(std::size_t node, const std::string& needle) {
    const auto deadline = Clock::now() + 5s;
    while (Clock::now() < deadline) {
      if (log_of(node).find(needle) != std::string::npos) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  std::string entry_of(std::size_t i) const {
    const auto& n = nodes_[i];
    return R"({"id": ")" + n.id + R"(", "host": ")" + n.address + R"(", "http_port": )" +
           std::to_string(n.http_port) + R"(, "peer_port": )" + std::to_string(n.peer_port) +
           R"(, "icp_port": )" + std::to_string(n.icp_port) + R"(, "object_port": )" +
           std::to_string(n.object_port) + "}";
  }
  // After node `d` is a peer of every other node: both ways, PEER-HITs within
  // about a second of what made it one.
  void expect_peer_hits_both_ways(std::size_t d, Clock::time_point joined, const std::string& tag) {
    // What node-a cached before is a PEER-HIT at d...
    ASSERT_TRUE(wait_for_summary(d, 0));
    EXPECT_LT(Clock::now() - joined, 1500ms) << "d routed misses to node-a only after that long";
    const auto at_d = fetch(d, "/obj/" + tag + "-at-a?max_age=600");
    EXPECT_EQ(x_cache(at_d), "PEER-HIT") << log_of(d);
    // ...and what d caches now is one at node-b once d's next update lands.
    const auto cached = Clock::now();
    EXPECT_EQ(x_cache(fetch(d, "/obj/" + tag + "-at-d?max_age=600")), "MISS");
    ASSERT_TRUE(wait_for_deliveries(d, 1));
    EXPECT_LT(Clock::now() - cached, 1500ms);
    EXPECT_EQ(x_cache(fetch(1, "/obj/" + tag + "-at-d?max_age=600")), "PEER-HIT") << log_of(1);
    EXPECT_EQ(origin_.log().count("/obj/" + tag + "-at-d"), 1U);
  }
  // Node d leaves every other node: nothing of it in /peers or /metrics, and
  // a URL only d holds goes to the origin, never to d.
  void expect_gone(std::size_t d, const std::string& tag) {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (i == d) continue;
      const json peers = peers_of(i);
      EXPECT_EQ(peer_entry(peers, nodes_[d].id), nullptr) << nodes_[i].id << ": " << peers.dump();
      const std::string metrics = admin(i, "/metrics").body;
      EXPECT_EQ(metrics.find("peer=\"" + nodes_[d].id + "\""), std::string::npos) << nodes_[i].id;
    }
    const std::size_t d_lines = count_matches(access_log_of(d), "/obj/" + tag + "-only-d");
    const auto r = fetch(1, "/obj/" + tag + "-only-d?max_age=600");
    EXPECT_EQ(x_cache(r), "MISS");
    std::this_thread::sleep_for(100ms);  // a line d would write arrives after its response
    EXPECT_EQ(count_matches(access_log_of(d), "/obj/" + tag + "-only-d"), d_lines)
        << "node-b asked the removed node";
  }
};

TEST_F(ClusterMembership, AFourthNodeAddedBySighupJoinsAndLeavesLive) {
  ASSERT_TRUE(start_cluster({.nodes = 4, .late_nodes = 1}));
  EXPECT_EQ(x_cache(fetch(0, "/obj/hup-at-a?max_age=600")), "MISS");
  nodes_[3].listed = true;
  for (std::size_t i = 0; i < 3; ++i) {
    write_config(i);
    ASSERT_TRUE(reload_node(i)) << log_of(i);
    EXPECT_TRUE(wait_for_log(i, "peer node-d added (config)")) << log_of(i);
    EXPECT_EQ(count_matches(log_of(i), "needs a restart"), 0U) << log_of(i);
  }
  ASSERT_TRUE(start_node(3));
  expect_peer_hits_both_ways(3, Clock::now(), "hup");

  // d caches a URL its peers learn of; then d leaves every list.
  EXPECT_EQ(x_cache(fetch(3, "/obj/hup-only-d?max_age=600")), "MISS");
  ASSERT_TRUE(wait_for_deliveries(3, 1));
  nodes_[3].listed = false;
  for (std::size_t i = 0; i < 3; ++i) {
    write_config(i);
    ASSERT_TRUE(reload_node(i));
    EXPECT_TRUE(wait_for_log(i, "peer node-d removed (not in the reloaded config)")) << log_of(i);
  }
  expect_gone(3, "hup");
}

TEST_F(ClusterMembership, AFourthNodeAddedByTheAdminCallJoinsAndLeavesLive) {
  ASSERT_TRUE(start_cluster({.nodes = 4, .late_nodes = 1}));
  EXPECT_EQ(x_cache(fetch(0, "/obj/api-at-a?max_age=600")), "MISS");
  ASSERT_TRUE(start_node(3));  // it names a, b and c; they refuse it until added

  // The token, the body and the table are checked before anything changes.
  EXPECT_EQ(admin(0, "/peers", "POST", entry_of(3)).status, 401U);
  const auto bad = admin(0, "/peers", "POST", R"({"id": "node-d"})", true);
  EXPECT_EQ(bad.status, 400U);
  EXPECT_NE(bad.body.find("$.host: required"), std::string::npos) << bad.body;
  EXPECT_EQ(admin(0, "/peers", "POST", R"({"id": "node-b", "host": "127.0.0.9"})", true).status,
            409U);
  EXPECT_EQ(admin(0, "/peers/node-z", "DELETE", "", true).status, 404U);

  const auto added_at = Clock::now();
  for (std::size_t i = 0; i < 3; ++i) {
    const auto r = admin(i, "/peers", "POST", entry_of(3), true);
    EXPECT_EQ(r.status, 201U) << r.body;
  }
  EXPECT_EQ(admin(0, "/peers", "POST", entry_of(3), true).status, 409U);  // a duplicate id
  expect_peer_hits_both_ways(3, added_at, "api");

  EXPECT_EQ(x_cache(fetch(3, "/obj/api-only-d?max_age=600")), "MISS");
  ASSERT_TRUE(wait_for_deliveries(3, 1));
  for (std::size_t i = 0; i < 3; ++i) {
    const auto r = admin(i, "/peers/node-d", "DELETE", "", true);
    EXPECT_EQ(r.status, 200U) << r.body;
  }
  expect_gone(3, "api");
  const std::string metrics = admin(0, "/metrics").body;
  EXPECT_NE(metrics.find("sumcache_peers_joined_total 1\n"), std::string::npos);
  EXPECT_NE(metrics.find("sumcache_peers_left_total 1\n"), std::string::npos);
  // node-b's id and node-d's second add.
  EXPECT_NE(metrics.find("sumcache_peer_joins_refused_total 2\n"), std::string::npos) << metrics;
}

// POST /peers takes only what the config file would (config/peer_checks.h): a
// link-local host, or this node's own listener, is a 400 naming the field, and
// nothing joins.
TEST_F(ClusterMembership, TheAdminCallRefusesPeersTheConfigFileRefuses) {
  ASSERT_TRUE(start_cluster({.nodes = 2}));
  const auto link_local =
      admin(0, "/peers", "POST", R"({"id": "metadata", "host": "169.254.169.254"})", true);
  EXPECT_EQ(link_local.status, 400U) << link_local.body;
  EXPECT_NE(link_local.body.find("$.host: 169.254.169.254 is inside $.access.deny_destinations"),
            std::string::npos)
      << link_local.body;
  const auto& a = nodes_[0];
  const std::string self = R"({"id": "itself", "host": ")" + a.address + R"(", "http_port": )" +
                           std::to_string(a.http_port) + "}";
  const auto own = admin(0, "/peers", "POST", self, true);
  EXPECT_EQ(own.status, 400U) << own.body;
  EXPECT_NE(own.body.find("$.http_port: " + a.address + " port " + std::to_string(a.http_port) +
                          " is this node's own listener ($.listen[0])"),
            std::string::npos)
      << own.body;
  const json peers = peers_of(0);
  EXPECT_EQ(peers["peers"].size(), 1U) << peers.dump();
  EXPECT_NE(admin(0, "/metrics").body.find("sumcache_peers_joined_total 0\n"), std::string::npos);
}

TEST_F(ClusterMembership, AnUnknownNodeWithTheRightSecretIsRefusedWithAStaticList) {
  ASSERT_TRUE(start_cluster({.nodes = 3, .late_nodes = 1}));
  ASSERT_TRUE(start_node(2));  // node-c names a and b, with the cluster's secret
  const auto deadline = Clock::now() + 10s;
  std::string metrics;
  while (Clock::now() < deadline) {
    metrics = admin(0, "/metrics").body;
    if (metrics.find("sumcache_peer_listener_refused_total{reason=\"node\"} 0") ==
            std::string::npos &&
        metrics.find("sumcache_peer_listener_refused_total{reason=\"node\"}") !=
            std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(metrics.find("sumcache_peer_listener_refused_total{reason=\"node\"} 0"),
            std::string::npos)
      << metrics;
  EXPECT_NE(log_of(0).find("node \"node-c\" is not a peer of this node"), std::string::npos)
      << log_of(0);
  EXPECT_EQ(peer_entry(peers_of(0), "node-c"), nullptr);
  // node-c never gets a's summary: a miss there goes to the origin.
  fetch(0, "/obj/static-at-a?max_age=600");
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(x_cache(fetch(2, "/obj/static-at-a?max_age=600")), "MISS");
}

TEST_F(ClusterMembership, APeerDownPastItsGraceLeavesTheDirectoryAndComesBack) {
  ClusterOptions options{.nodes = 3};
  options.extra_cluster_json = R"("peer_grace_ms": 500,)";
  ASSERT_TRUE(start_cluster(options));
  fetch(2, "/obj/grace-at-c?max_age=600");
  ASSERT_TRUE(wait_for_summary(0, 2));
  kill_node(2);
  // Down after three failed exchanges, then 500 ms: its summary is dropped.
  const auto killed = Clock::now();
  while (Clock::now() - killed < 10s) {
    const json peers = peers_of(0);
    const json* c = peer_entry(peers, "node-c");
    ASSERT_NE(c, nullptr) << "a configured peer stays in the table";
    if (!c->value("has_summary", true)) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_LT(Clock::now() - killed, 10s) << admin(0, "/peers").body;
  EXPECT_NE(admin(0, "/metrics").body.find("sumcache_peer_grace_drops_total 1\n"),
            std::string::npos);
  EXPECT_NE(log_of(0).find("peer node-c down for more than cluster.peer_grace_ms"),
            std::string::npos)
      << log_of(0);
  // Back: pulled again (its disk-less store is empty, but it answers).
  ASSERT_TRUE(start_node(2));
  EXPECT_TRUE(wait_for_summary(0, 2, 20s));
}

TEST_F(ClusterMembership, AFourthNodeFoundByDiscoveryJoinsAndLeavesLive) {
  // Every node on its own loopback address with the same ports, as pods are;
  // the name's records are a hosts file the test writes.
  const auto hosts = work_.path() / "hosts";
  const auto write_hosts = [&hosts](const std::vector<std::string>& addresses) {
    std::string text = "# written by the test\n";
    for (const auto& a : addresses) text += a + " sumcache-peers.test\n";
    const auto next = hosts.string() + ".next";
    std::ofstream(next) << text;
    std::filesystem::rename(next, hosts);  // whole, never half-written
  };
  write_hosts({"127.0.0.20", "127.0.0.21", "127.0.0.22"});
  ClusterOptions options{.nodes = 4, .late_nodes = 1, .distinct_addresses = true};
  options.extra_cluster_json = R"("discovery": {"name": "sumcache-peers.test", "hosts_file": ")" +
                               hosts.string() + R"(", "interval_ms": 200},)";
  ASSERT_TRUE(start_cluster(options));
  EXPECT_EQ(x_cache(fetch(0, "/obj/disc-at-a?max_age=600")), "MISS");

  // The name lists node-d before it is up: a degraded path, counted and logged.
  write_hosts({"127.0.0.20", "127.0.0.21", "127.0.0.22", "127.0.0.23"});
  EXPECT_TRUE(wait_for_log(0, "cluster.discovery: 127.0.0.23 gives no node id")) << log_of(0);
  const std::string metrics = admin(0, "/metrics").body;
  EXPECT_EQ(metrics.find("sumcache_discovery_failures_total 0\n"), std::string::npos);
  EXPECT_NE(metrics.find("sumcache_discovery_failures_total "), std::string::npos) << metrics;

  ASSERT_TRUE(start_node(3));
  const auto started = Clock::now();
  // Each of the others finds node-d at its next lookup (every 200 ms).
  for (std::size_t i = 0; i < 3; ++i) {
    while (Clock::now() - started < 5s && peer_entry(peers_of(i), "node-d") == nullptr) {
      std::this_thread::sleep_for(10ms);
    }
    EXPECT_LT(Clock::now() - started, 1500ms) << nodes_[i].id << " found node-d that late";
  }
  expect_peer_hits_both_ways(3, started, "disc");
  const json peers = peers_of(0);
  const json* d = peer_entry(peers, "node-d");
  ASSERT_NE(d, nullptr) << peers.dump();
  EXPECT_EQ(d->value("source", ""), "discovery");
  EXPECT_EQ(d->value("host", ""), "127.0.0.23");

  // node-d leaves the name: it leaves every table within an interval or so.
  EXPECT_EQ(x_cache(fetch(3, "/obj/disc-only-d?max_age=600")), "MISS");
  ASSERT_TRUE(wait_for_deliveries(3, 1));
  write_hosts({"127.0.0.20", "127.0.0.21", "127.0.0.22"});
  for (std::size_t i = 0; i < 3; ++i) {
    const auto until = Clock::now() + 5s;
    while (Clock::now() < until && peer_entry(peers_of(i), "node-d") != nullptr) {
      std::this_thread::sleep_for(20ms);
    }
  }
  expect_gone(3, "disc");
}

}  // namespace
}  // namespace sumcache::testing
