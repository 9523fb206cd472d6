// Cluster-wide invalidation (docs/peers.md): three real sumcached nodes and a
// real origin on loopback. A purge, or an RFC 9111 §4.4 invalidation, at one
// node takes the URL out of every node, and no node hands the purged copy
// back: not a peer whose summary still claims it, nor one that was down.

#include <nlohmann/json.hpp>
#include <thread>

#include "tests/daemon/integration/cluster_fixture.h"
#include "tests/support/ports.h"

namespace sumcache::testing {
namespace {

using Json = nlohmann::json;

class ClusterPurge : public ClusterTest {
 protected:
  // Admin POST /purge of the origin URL at `node`.
  ClientResponse purge_at(std::size_t node, const std::string& path) {
    return admin(node, "/purge", "POST", Json{{"url", origin_url(path)}}.dump(), true);
  }

  // /peers at `node`: the invalidations entry of peer `peer_id`.
  Json invalidations_of(std::size_t node, const std::string& peer_id) {
    const auto r = admin(node, "/peers");
    const Json j = Json::parse(r.body, nullptr, false);
    if (j.is_discarded()) return {};
    for (const auto& p : j["peers"]) {
      if (p["id"] == peer_id) return p.value("invalidations", Json{});
    }
    return {};
  }

  // Polls (10 s at most) until `node` no longer holds `path`.
  bool wait_until_gone(std::size_t node, const std::string& path) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (local_status(node, path) == 504) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
};

TEST_F(ClusterPurge, APurgeAtOneNodeRemovesTheUrlOnEveryNode) {
  ASSERT_TRUE(start_cluster({}));
  const std::string path = "/obj/everywhere?max_age=600&size=5000";
  ASSERT_EQ(x_cache(fetch(0, path)), "MISS");
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  ASSERT_TRUE(wait_for_deliveries(0, 2));
  ASSERT_EQ(x_cache(fetch(1, path)), "PEER-HIT");
  ASSERT_EQ(x_cache(fetch(2, path)), "PEER-HIT");
  for (std::size_t n = 0; n < 3; ++n) ASSERT_EQ(local_status(n, path), 200U) << n;
  ASSERT_EQ(origin_.log().count("/obj/everywhere"), 1U);

  const auto purged = purge_at(0, path);
  ASSERT_EQ(purged.status, 200U) << purged.body;
  const Json answer = Json::parse(purged.body);
  EXPECT_EQ(answer["purged"], 1);
  EXPECT_EQ(answer["nodes"], (Json{{"acked", 3}, {"total", 3}, {"pending", Json::array()}}))
      << purged.body;

  // Every node acknowledged before the answer: none holds it any more.
  for (std::size_t n = 0; n < 3; ++n) EXPECT_EQ(local_status(n, path), 504U) << nodes_[n].id;
  const auto again = fetch(1, path);
  EXPECT_EQ(again.status, 200U);
  EXPECT_EQ(x_cache(again), "MISS");
  EXPECT_EQ(origin_.log().count("/obj/everywhere"), 2U);

  // Counted at both ends.
  const Json sent = invalidations_of(0, "node-b");
  EXPECT_EQ(sent.value("pending", 99), 0) << sent.dump();
  EXPECT_GE(sent.value("acked_through", 0), 1) << sent.dump();
  const auto metrics = admin(1, "/metrics").body;
  EXPECT_NE(metrics.find("sumcache_invalidations_received_total 1"), std::string::npos) << metrics;
  EXPECT_NE(admin(0, "/metrics").body.find("sumcache_invalidations_acked_total 2"),
            std::string::npos);
}

TEST_F(ClusterPurge, RightAfterAPurgeAMissGoesToTheOriginNotToAPeerStillHoldingIt) {
  ASSERT_TRUE(start_cluster({}));
  // node-a cannot deliver its invalidations to node-b, whose summary still
  // claims the URL at node-a and whose proxy port still serves it.
  ASSERT_TRUE(cut_peer_channel(0, 1));
  const std::string path = "/obj/held-by-b?max_age=600&size=3000";
  ASSERT_EQ(x_cache(fetch(1, path)), "MISS");
  ASSERT_TRUE(wait_for_deliveries(1, 0));
  const std::size_t b_lines = count_matches(access_log_of(1), "/obj/held-by-b");

  // PURGE on the proxy port, from an admin.allow address.
  const auto purged = fetch(0, path, {}, "PURGE");
  EXPECT_EQ(purged.status, 404U) << purged.body << log_of(0);  // node-a itself had nothing
  const Json answer = Json::parse(purged.body, nullptr, false);
  ASSERT_FALSE(answer.is_discarded()) << purged.body;
  EXPECT_EQ(answer["nodes"]["acked"], 2) << purged.body;
  EXPECT_EQ(answer["nodes"]["total"], 3) << purged.body;
  EXPECT_EQ(answer["nodes"]["pending"], Json::array({"node-b"})) << purged.body;

  const auto after = fetch(0, path);
  EXPECT_EQ(after.status, 200U);
  EXPECT_EQ(x_cache(after), "MISS");
  EXPECT_EQ(origin_.log().count("/obj/held-by-b"), 2U);
  // node-b was not even asked: the tombstone stands while it has not acknowledged.
  EXPECT_EQ(count_matches(access_log_of(1), "/obj/held-by-b"), b_lines) << access_log_of(1);
}

TEST_F(ClusterPurge, AnUnsafeRequestInvalidatesEveryNode_Rfc9111_4_4) {
  ASSERT_TRUE(start_cluster({}));
  ASSERT_TRUE(cut_peer_channel(0, 1));
  const std::string path = "/obj/posted?max_age=600&size=3000";
  ASSERT_EQ(x_cache(fetch(1, path)), "MISS");
  ASSERT_TRUE(wait_for_deliveries(1, 2));
  ASSERT_EQ(x_cache(fetch(2, path)), "PEER-HIT");
  ASSERT_TRUE(wait_for_deliveries(1, 0));
  const std::size_t b_lines = count_matches(access_log_of(1), "/obj/posted");

  // A POST through node-a to the same URI (2xx): invalidated here and sent on.
  ASSERT_EQ(fetch(0, path, {}, "POST").status, 200U);
  EXPECT_TRUE(wait_until_gone(2, path)) << "node-c still holds it";
  const auto after = fetch(0, path);
  EXPECT_EQ(after.status, 200U);
  EXPECT_EQ(x_cache(after), "MISS");
  EXPECT_EQ(count_matches(access_log_of(1), "/obj/posted"), b_lines) << access_log_of(1);
  // node-b's GET, the POST, and node-a's GET after it.
  EXPECT_EQ(origin_.log().count("/obj/posted"), 3U);
}

TEST_F(ClusterPurge, APeerDownDuringThePurgeDoesNotServeTheObjectOnceBack) {
  ASSERT_TRUE(start_cluster({.disk = true}));
  const std::string path = "/obj/while-down?max_age=600&size=4000";
  ASSERT_EQ(x_cache(fetch(0, path)), "MISS");
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  ASSERT_TRUE(wait_for_deliveries(0, 2));
  ASSERT_EQ(x_cache(fetch(1, path)), "PEER-HIT");
  ASSERT_EQ(x_cache(fetch(2, path)), "PEER-HIT");
  // node-b's copy is on its disk before it is killed.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const Json stats = Json::parse(admin(1, "/stats").body, nullptr, false);
    if (!stats.is_discarded() && stats["store"]["disk"]["objects"] >= 1 &&
        stats["store"]["disk"]["queued_bytes"] == 0) {
      break;
    }
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "node-b wrote nothing to disk";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill_node(1);

  const auto purged = purge_at(0, path);
  ASSERT_EQ(purged.status, 200U) << purged.body << log_of(0);
  EXPECT_EQ(Json::parse(purged.body)["nodes"]["pending"], Json::array({"node-b"})) << purged.body;

  ASSERT_TRUE(start_node(1));
  // node-a resends until node-b acknowledges.
  const auto caught_up = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (invalidations_of(0, "node-b").value("pending", 99) != 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), caught_up)
        << invalidations_of(0, "node-b").dump() << "\n"
        << log_of(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(local_status(1, path), 504U) << "node-b kept the purged object";
  const auto at_c = fetch(2, path);
  EXPECT_EQ(at_c.status, 200U);
  EXPECT_EQ(x_cache(at_c), "MISS");
  EXPECT_EQ(origin_.log().count("/obj/while-down"), 2U);
}
}  // namespace
}  // namespace sumcache::testing
