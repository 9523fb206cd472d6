// The admin endpoint of a live cluster: /stats, /peers and /metrics change
// exactly as a scripted sequence of requests implies (a miss, a hit, a peer
// hit, a false hit, a purge).

#include <nlohmann/json.hpp>

#include <thread>

#include "tests/daemon/admin/promtool.h"
#include "tests/daemon/integration/cluster_fixture.h"

namespace sumcache::testing {
namespace {

using nlohmann::json;

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

class ClusterAdmin : public ClusterTest {
 protected:
  json admin_json(std::size_t node, const std::string& path) {
    return json::parse(admin(node, path).body, nullptr, false);
  }
};

TEST_F(ClusterAdmin, StatsPeersAndMetricsFollowAScriptedSequence) {
  ASSERT_TRUE(start_cluster({.nodes = 2}));
  EXPECT_EQ(fetch(0, "/obj/p?max_age=600").header("X-Cache"), "MISS");
  EXPECT_EQ(fetch(0, "/obj/p?max_age=600").header("X-Cache"), "HIT");
  fetch(0, "/obj/s?max_age=1");
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  EXPECT_EQ(fetch(1, "/obj/p?max_age=600").header("X-Cache"), "PEER-HIT");
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // /obj/s goes stale at node-a
  EXPECT_EQ(fetch(1, "/obj/s?max_age=1").header("X-Cache"), "MISS");  // after a false hit
  EXPECT_EQ(fetch(1, "/obj/nowhere?max_age=600").header("X-Cache"), "MISS");  // no peer asked

  const json a = admin_json(0, "/stats");
  EXPECT_EQ(a["misses"], 3);  // its two fills, and node-b's stale /obj/s it answered 504
  EXPECT_EQ(a["hits"]["memory"], 2);  // its own hit, and the peer request it answered
  EXPECT_EQ(a["requests"]["total"], 5);  // 3 of its clients, 2 of node-b (one answered 504)

  const json b = admin_json(1, "/stats");
  EXPECT_EQ(b["requests"]["total"], 3);
  EXPECT_EQ(b["hits"]["peer"], 1);
  EXPECT_EQ(b["false_hits"], 1);
  EXPECT_EQ(b["misses"], 2);

  const json peers = admin_json(1, "/peers");
  ASSERT_EQ(peers["peers"].size(), 1U);
  const json& pa = peers["peers"][0];
  EXPECT_EQ(pa["id"], "node-a");
  EXPECT_EQ(pa["state"], "up");
  EXPECT_EQ(pa["has_summary"], true);
  EXPECT_EQ(pa["requests_sent"], 2);
  EXPECT_EQ(pa["true_hits"], 1);
  EXPECT_EQ(pa["false_hits"], 1);
  EXPECT_DOUBLE_EQ(pa["measured_false_hit_rate"].get<double>(), 0.5);
  EXPECT_GE(pa["messages_received"].get<int>(), 1);
  EXPECT_EQ(pa["entries"], 2);  // node-a holds /obj/p and /obj/s

  const std::string metrics = admin(1, "/metrics").body;
  EXPECT_TRUE(has_line(metrics, R"(sumcache_requests_total{result="peer_hit"} 1)")) << metrics;
  EXPECT_TRUE(has_line(metrics, "sumcache_false_hits_total 1")) << metrics;
  EXPECT_TRUE(has_line(metrics, R"(sumcache_peer_false_hits_total{peer="node-a"} 1)")) << metrics;
  EXPECT_TRUE(has_line(metrics, R"(sumcache_peer_true_hits_total{peer="node-a"} 1)")) << metrics;
  const PromtoolCheck check = promtool_check(metrics);  // the peer families too
  EXPECT_TRUE(check.passed) << check.output;

  // A purge at node-a: a bad token changes nothing, the right one evicts, and
  // node-a's filter (and so its next summary) loses the key.
  const std::string body = R"({"url": ")" + origin_url("/obj/p?max_age=600") + R"("})";
  EXPECT_EQ(admin(0, "/purge", "POST", body).status, 401U);
  EXPECT_EQ(admin_json(0, "/filter")["entries"], 2);
  EXPECT_EQ(admin(0, "/purge", "POST", body, true).status, 200U);
  EXPECT_EQ(admin(0, "/purge", "POST", body, true).status, 404U);
  EXPECT_EQ(admin_json(0, "/filter")["entries"], 1);
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  EXPECT_EQ(admin_json(1, "/peers")["peers"][0]["entries"], 1);
}

}  // namespace
}  // namespace sumcache::testing
