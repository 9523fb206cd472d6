// Three (or four) real sumcached nodes in summary mode and a real origin: a
// miss goes only to a peer whose summary claims the URL, and the cluster
// behaves as one cache (Summary Cache, Fan et al. 2000).

#include <thread>

#include "tests/daemon/integration/cluster_fixture.h"

namespace sumcache::testing {
namespace {

class Cluster : public ClusterTest {};

TEST_F(Cluster, AUrlCachedAtOneNodeIsServedToAnotherFromThatPeer) {
  ASSERT_TRUE(start_cluster({}));
  const auto first = fetch(0, "/obj/shared?max_age=600&size=20000");
  ASSERT_EQ(first.status, 200U);
  EXPECT_EQ(x_cache(first), "MISS");
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  ASSERT_TRUE(wait_for_deliveries(0, 2));

  const auto at_b = fetch(1, "/obj/shared?max_age=600&size=20000");
  ASSERT_EQ(at_b.status, 200U);
  EXPECT_EQ(x_cache(at_b), "PEER-HIT");
  EXPECT_EQ(at_b.body, first.body);
  EXPECT_EQ(origin_.log().count("/obj/shared"), 1U);
  // node-b stored it (store_peer_hits): its next request is a local hit.
  EXPECT_EQ(x_cache(fetch(1, "/obj/shared?max_age=600&size=20000")), "HIT");
  // node-a logged its own miss and then the peer request it answered from its cache.
  EXPECT_TRUE(wait_for_access(0, "/obj/shared", 2)) << access_log_of(0);
  EXPECT_EQ(origin_.log().count("/obj/shared"), 1U);
}

TEST_F(Cluster, AMissNoSummaryClaimsGoesStraightToTheOrigin) {
  ASSERT_TRUE(start_cluster({}));
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  const auto r = fetch(1, "/obj/nobody-has-it?max_age=600");
  EXPECT_EQ(x_cache(r), "MISS");
  EXPECT_EQ(origin_.log().count("/obj/nobody-has-it"), 1U);
  // No peer was asked: neither other node logged the URL.
  EXPECT_EQ(access_log_of(0).find("/obj/nobody-has-it"), std::string::npos);
  EXPECT_EQ(access_log_of(2).find("/obj/nobody-has-it"), std::string::npos);
}

TEST_F(Cluster, AnInvalidatedUrlStopsBeingRoutedOnceTheNextUpdateLands) {
  ASSERT_TRUE(start_cluster({}));
  fetch(0, "/obj/gone?max_age=600");
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  // An unsafe request through node-a invalidates its copy (RFC 9111 §4.4).
  EXPECT_EQ(fetch(0, "/obj/gone?max_age=600", {}, "POST").status, 200U);
  ASSERT_TRUE(wait_for_access(0, "/obj/gone", 2));
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  const std::size_t peer_lines = count_matches(access_log_of(0), "/obj/gone");
  const auto r = fetch(1, "/obj/gone?max_age=600");
  EXPECT_EQ(x_cache(r), "MISS");
  EXPECT_EQ(count_matches(access_log_of(0), "/obj/gone"), peer_lines) << "node-a was asked";
}

TEST_F(Cluster, AFalseHitFallsBackToTheOrigin) {
  // node-a keeps the object past its freshness: its summary still claims the
  // URL, but it cannot serve it under only-if-cached (RFC 9111 §5.2.1.7): a
  // false hit, as the paper counts them (absent or stale at the peer).
  ASSERT_TRUE(start_cluster({.nodes = 2}));
  fetch(0, "/obj/stale?max_age=1");
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  const auto r = fetch(1, "/obj/stale?max_age=1");
  ASSERT_EQ(r.status, 200U);
  EXPECT_EQ(x_cache(r), "MISS");
  EXPECT_TRUE(wait_for_access(0, "/504 ")) << access_log_of(0);
  EXPECT_EQ(origin_.log().count("/obj/stale"), 2U);
}

TEST_F(Cluster, KillingAPeerMidRunLosesNoClientRequest) {
  ASSERT_TRUE(start_cluster({}));
  for (int i = 0; i < 10; ++i) fetch(0, "/obj/k" + std::to_string(i) + "?max_age=600");
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  kill_node(0);
  // Every request is answered, from the origin now, within the client's timeout.
  for (int i = 0; i < 10; ++i) {
    const auto r = fetch(1, "/obj/k" + std::to_string(i) + "?max_age=600");
    EXPECT_EQ(r.status, 200U) << i;
  }
}

TEST_F(Cluster, ARestartedPeerResynchronises) {
  ASSERT_TRUE(start_cluster({.disk = true}));
  fetch(0, "/obj/kept?max_age=600&size=3000");
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  kill_node(0);
  ASSERT_TRUE(start_node(0));  // its disk tier still holds /obj/kept; a new epoch
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  const auto r = fetch(1, "/obj/kept?max_age=600&size=3000");
  EXPECT_EQ(x_cache(r), "PEER-HIT");
  EXPECT_EQ(origin_.log().count("/obj/kept"), 1U);
}

TEST_F(Cluster, ANodeWithTheWrongSecretIsRefused) {
  ASSERT_TRUE(start_cluster({}));
  kill_node(2);
  nodes_[2].secret = "not-the-cluster-secret-at-all";
  ASSERT_TRUE(start_node(2));
  fetch(2, "/obj/untrusted?max_age=600");
  ASSERT_TRUE(wait_for_access(2, "/obj/untrusted"));
  // node-b refuses node-c's requests at their head (Sumcache-Channel-Auth,
  // keyed with the secret) and says why.
  ASSERT_TRUE(nodes_[1].process->wait_for_line("refused .*node-c.*401 .*MAC does not match",
                                               std::chrono::seconds(10), Output::err))
      << log_of(1);
  const auto r = fetch(1, "/obj/untrusted?max_age=600");
  EXPECT_EQ(x_cache(r), "MISS");
  EXPECT_EQ(count_matches(access_log_of(2), "/obj/untrusted"), 1U);
}

TEST_F(Cluster, SummariesTravelOverTlsWhenConfigured) {
  ASSERT_TRUE(start_cluster({.nodes = 2, .tls = true}));
  fetch(0, "/obj/secure?max_age=600&size=2000");
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  EXPECT_EQ(x_cache(fetch(1, "/obj/secure?max_age=600&size=2000")), "PEER-HIT");
  // The peer listener speaks TLS only: a plain HTTP request gets no answer.
  HttpClient plain({.host = "127.0.0.1",
                    .port = nodes_[1].peer_port,
                    .timeout = std::chrono::seconds(3),
                    .reuse_connection = false});
  EXPECT_FALSE(plain.send({.method = "GET", .target = "/sumcache/v1/summary"}).ok());
}

TEST_F(Cluster, IcpModeFetchesFromThePeerThatAnsweredHit) {
  ASSERT_TRUE(start_cluster({.sharing = "icp"}));
  fetch(0, "/obj/icp?max_age=600&size=1000");
  const auto r = fetch(1, "/obj/icp?max_age=600&size=1000");
  EXPECT_EQ(x_cache(r), "PEER-HIT");
  EXPECT_EQ(origin_.log().count("/obj/icp"), 1U);
}

// A dead ICP peer (a port nobody answers on) is marked down after the first
// query it leaves unanswered and probed in the background (docs/icp.md, "Dead
// peers"): it costs one miss a peer_timeout_ms (1 s here), not one per miss
// until failures add up. Back, it answers a probe, is up, and is asked again.
TEST_F(Cluster, IcpModeADeadPeerCostsOneSlowMissAndIsAskedAgainOnceBack) {
  ASSERT_TRUE(start_cluster({.nodes = 2, .sharing = "icp"}));
  kill_node(1);
  int slow = 0;
  for (int i = 0; i < 8; ++i) {
    const auto started = std::chrono::steady_clock::now();
    ASSERT_EQ(fetch(0, "/obj/icp-dead-" + std::to_string(i) + "?max_age=600").status, 200U);
    if (std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(800)) ++slow;
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  EXPECT_EQ(slow, 1);
  const std::string metrics = admin(0, "/metrics").body;
  EXPECT_NE(metrics.find("\nsumcache_icp_peers_marked_down_total 1\n"), std::string::npos)
      << metrics;
  EXPECT_EQ(metrics.find("\nsumcache_icp_probes_total{result=\"unanswered\"} 0\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(log_of(0).find("icp: peer node-b marked down"), std::string::npos) << log_of(0);

  ASSERT_TRUE(start_node(1));
  fetch(1, "/obj/icp-back?max_age=600&size=1000");  // cached at node-b
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline &&
         admin(0, "/peers").body.find(R"("state": "up")") == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(log_of(0).find("icp: peer node-b answered a probe: up"), std::string::npos)
      << log_of(0);
  EXPECT_EQ(x_cache(fetch(0, "/obj/icp-back?max_age=600&size=1000")), "PEER-HIT");
  EXPECT_EQ(origin_.log().count("/obj/icp-back"), 1U);
}

}  // namespace
}  // namespace sumcache::testing
