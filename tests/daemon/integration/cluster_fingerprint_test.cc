// Real sumcached nodes exchanging fingerprint summaries (filter.kind
// "fingerprint", docs/peers.md "Summary kinds"): full and delta summaries
// reach the peers' fingerprint directories, a miss goes to the claiming peer
// only, removals leave the peer's directory, and a cluster of both kinds (a
// rolling change of filter.kind) routes misses both ways.

#include <nlohmann/json.hpp>
#include <thread>

#include "filters/hashing.h"
#include "protocol/encode.h"
#include "tests/daemon/admin/promtool.h"
#include "tests/daemon/integration/cluster_fixture.h"
#include "tests/support/channel_head.h"

namespace sumcache::testing {
namespace {

using nlohmann::json;

constexpr const char* kFingerprints = R"("filter": {"kind": "fingerprint"},)";
// The peer listener's summary route and type (docs/peers.md, "The exchange").
constexpr const char* kSummaryPath = "/sumcache/v1/summary";
constexpr const char* kSummaryType = "application/vnd.sumcache.summary";

class ClusterFingerprint : public ClusterTest {
 protected:
  json admin_json(std::size_t node, const std::string& path) {
    return json::parse(admin(node, path).body, nullptr, false);
  }
  // node's /peers entry for peer `id`; null when it is not listed.
  json peer_of(std::size_t node, const std::string& id) {
    const json peers = admin_json(node, "/peers");
    for (const json& p : peers["peers"]) {
      if (p["id"] == id) return p;
    }
    return nullptr;
  }
  // Waits until node holds `entries` fingerprints of peer `id`: false after 10 s.
  bool wait_for_entries(std::size_t node, const std::string& id, std::uint64_t entries) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      const json p = peer_of(node, id);
      if (p.is_object() && p["entries"] == entries) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
};

TEST_F(ClusterFingerprint, FullAndDeltaSummariesRouteAMissToTheClaimingPeerOnly) {
  ASSERT_TRUE(start_cluster({.extra_json = kFingerprints}));
  const auto first = fetch(0, "/obj/fp-first?max_age=600&size=5000");
  ASSERT_EQ(first.status, 200U);
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  ASSERT_TRUE(wait_for_deliveries(0, 2));
  // Held as fingerprints at both peers: node-a's one key.
  ASSERT_TRUE(wait_for_entries(1, "node-a", 1));
  EXPECT_EQ(peer_of(1, "node-a")["summary_kind"], "fingerprint");

  const auto at_b = fetch(1, "/obj/fp-first?max_age=600&size=5000");
  EXPECT_EQ(x_cache(at_b), "PEER-HIT");
  EXPECT_EQ(at_b.body, first.body);
  EXPECT_EQ(origin_.log().count("/obj/fp-first"), 1U);
  // node-c's summary claimed nothing: it was never asked.
  EXPECT_EQ(access_log_of(2).find("/obj/fp-first"), std::string::npos);

  // A key added after the first full reaches the peers in a delta.
  fetch(0, "/obj/fp-second?max_age=600&size=3000");
  ASSERT_TRUE(nodes_[0].process->wait_for_line("summary delta of [0-9]+ bytes delivered to node-c",
                                               std::chrono::seconds(10), Output::err))
      << log_of(0);
  ASSERT_TRUE(wait_for_entries(2, "node-a", 2));
  EXPECT_EQ(x_cache(fetch(2, "/obj/fp-second?max_age=600&size=3000")), "PEER-HIT");
  EXPECT_EQ(origin_.log().count("/obj/fp-second"), 1U);
  EXPECT_EQ(access_log_of(1).find("/obj/fp-second"), std::string::npos);
  // Every delta followed the set held: none was refused, no full was asked for.
  for (std::size_t node : {1, 2}) {
    const json a = peer_of(node, "node-a");
    EXPECT_EQ(a["messages_rejected"], 0) << a;
    EXPECT_EQ(a["last_error"], "") << a;
  }
  EXPECT_EQ(log_of(1).find("asked for a full one"), std::string::npos) << log_of(1);
  EXPECT_EQ(log_of(2).find("asked for a full one"), std::string::npos) << log_of(2);
}

TEST_F(ClusterFingerprint, AnInvalidatedKeyLeavesThePeersDirectory) {
  ASSERT_TRUE(start_cluster({.nodes = 2, .extra_json = kFingerprints}));
  fetch(0, "/obj/fp-kept?max_age=600");
  fetch(0, "/obj/fp-gone?max_age=600");
  ASSERT_TRUE(wait_for_entries(1, "node-a", 2));
  // An unsafe request through node-a removes its copy (RFC 9111 §4.4): the
  // next delta removes that fingerprint, by rank, from node-b's copy.
  EXPECT_EQ(fetch(0, "/obj/fp-gone?max_age=600", {}, "POST").status, 200U);
  ASSERT_TRUE(wait_for_entries(1, "node-a", 1));
  const std::size_t asked = count_matches(access_log_of(0), "/obj/fp-gone");
  EXPECT_EQ(x_cache(fetch(1, "/obj/fp-gone?max_age=600")), "MISS");
  EXPECT_EQ(count_matches(access_log_of(0), "/obj/fp-gone"), asked) << "node-a was asked";
  // The other key is still claimed.
  EXPECT_EQ(x_cache(fetch(1, "/obj/fp-kept?max_age=600")), "PEER-HIT");
  EXPECT_EQ(peer_of(1, "node-a")["messages_rejected"], 0);
}

TEST_F(ClusterFingerprint, ARestartedFingerprintPeerIsHeldAgainFromItsFull) {
  ASSERT_TRUE(start_cluster({.nodes = 2, .disk = true, .extra_json = kFingerprints}));
  fetch(0, "/obj/fp-disk?max_age=600&size=3000");
  ASSERT_TRUE(wait_for_entries(1, "node-a", 1));
  const json before = peer_of(1, "node-a");
  kill_node(0);
  ASSERT_TRUE(start_node(0));  // a new epoch; its disk tier still holds the object
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (peer_of(1, "node-a")["summary_epoch"] == before["summary_epoch"] &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const json after = peer_of(1, "node-a");
  EXPECT_NE(after["summary_epoch"], before["summary_epoch"]);
  EXPECT_EQ(after["entries"], 1);
  EXPECT_EQ(x_cache(fetch(1, "/obj/fp-disk?max_age=600&size=3000")), "PEER-HIT");
}

TEST_F(ClusterFingerprint, NodesOfBothKindsHoldEachOthersSummaryAndHitBothWays) {
  // node-a keeps Summary Cache's counting filter, node-b fingerprints: a
  // rolling change of filter.kind, half done.
  ASSERT_TRUE(start_cluster({.nodes = 2, .node_extra_json = {"", kFingerprints}}));
  fetch(0, "/obj/at-bloom?max_age=600&size=4000");
  fetch(1, "/obj/at-fingerprint?max_age=600&size=4000");
  ASSERT_TRUE(wait_for_entries(1, "node-a", 1));
  ASSERT_TRUE(wait_for_entries(0, "node-b", 1));
  EXPECT_EQ(peer_of(1, "node-a")["summary_kind"], "bloom");
  EXPECT_EQ(peer_of(0, "node-b")["summary_kind"], "fingerprint");
  EXPECT_EQ(admin_json(0, "/filter")["kind"], "counting-bloom");
  EXPECT_EQ(admin_json(1, "/filter")["kind"], "fingerprint");

  EXPECT_EQ(x_cache(fetch(1, "/obj/at-bloom?max_age=600&size=4000")), "PEER-HIT");
  EXPECT_EQ(x_cache(fetch(0, "/obj/at-fingerprint?max_age=600&size=4000")), "PEER-HIT");
  EXPECT_EQ(origin_.log().count("/obj/at-bloom"), 1U);
  EXPECT_EQ(origin_.log().count("/obj/at-fingerprint"), 1U);
  // Each directory holds the summary of its kind.
  EXPECT_GT(admin_json(0, "/peers")["directory"]["fingerprint_directory_bytes"], 0);
  EXPECT_GT(admin_json(1, "/peers")["directory"]["bloom_directory_bytes"], 0);
}

TEST_F(ClusterFingerprint, FilterPeersAndMetricsShowKindsAndMemory) {
  ASSERT_TRUE(start_cluster({.nodes = 2, .extra_json = kFingerprints}));
  for (int i = 0; i < 20; ++i) fetch(0, "/obj/shown-" + std::to_string(i) + "?max_age=600");
  ASSERT_TRUE(wait_for_entries(1, "node-a", 20));

  const json filter = admin_json(0, "/filter");
  EXPECT_EQ(filter["kind"], "fingerprint");
  EXPECT_EQ(filter["k"], 1);
  EXPECT_GT(filter["universe"].get<std::uint64_t>(), 20U);
  EXPECT_EQ(filter["universe"], filter["m"]);
  EXPECT_EQ(filter["entries"], 20);
  EXPECT_GT(filter["memory_bytes"].get<std::uint64_t>(), 0U);
  EXPECT_LE(filter["estimated_fpr"].get<double>(), 0.0024);

  const json peers = admin_json(1, "/peers");
  const json a = peer_of(1, "node-a");
  EXPECT_EQ(a["summary_kind"], "fingerprint");
  EXPECT_EQ(a["m"], filter["universe"]);
  EXPECT_EQ(a["k"], 1);
  EXPECT_GT(a["summary_memory_bytes"].get<std::uint64_t>(), 0U);
  const json& dir = peers["directory"];
  EXPECT_EQ(dir["fingerprint_entries"], 20);
  EXPECT_GE(dir["fingerprint_directory_bytes"], a["summary_memory_bytes"]);
  EXPECT_EQ(dir["fingerprints_refused"], 0);

  const std::string metrics = admin(1, "/metrics").body;
  EXPECT_NE(metrics.find("\nsumcache_filter_kind{kind=\"fingerprint\"} 1\n"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("\nsumcache_peer_filter_fingerprint{peer=\"node-a\"} 1\n"),
            std::string::npos);
  EXPECT_NE(metrics.find("\nsumcache_peer_directory_fingerprints 20\n"), std::string::npos);
  EXPECT_NE(metrics.find("\nsumcache_peer_fingerprints_refused_total 0\n"), std::string::npos);
  const PromtoolCheck check = promtool_check(metrics);
  EXPECT_TRUE(check.passed) << check.output;
}

TEST_F(ClusterFingerprint, APeersSetOverPeerMaxFingerprintsIsRefusedAndCounted) {
  // Each node holds at most 1024 fingerprints of a peer; node-a sends 1030.
  ASSERT_TRUE(start_cluster({.nodes = 2,
                             .extra_cluster_json = R"("peer_max_fingerprints": 1024,)",
                             .extra_json = kFingerprints}));
  for (int i = 0; i < 1030; ++i)
    fetch(0, "/obj/many-" + std::to_string(i) + "?max_age=600&size=10");
  ASSERT_TRUE(nodes_[1].process->wait_for_line("refused .*cluster.peer_max_fingerprints",
                                               std::chrono::seconds(20), Output::err))
      << log_of(1);
  const std::string metrics = admin(1, "/metrics").body;
  EXPECT_NE(metrics.find("\nsumcache_peer_listener_refused_total{reason=\"too_large\"} "),
            std::string::npos);
  EXPECT_EQ(metrics.find("\nsumcache_peer_listener_refused_total{reason=\"too_large\"} 0\n"),
            std::string::npos)
      << metrics;
  // What node-b held before stays (nothing over the cap was taken in).
  EXPECT_LE(peer_of(1, "node-a")["entries"].get<std::uint64_t>(), 1024U);
}

TEST_F(ClusterFingerprint, ASetTheDirectoryRefusesIsCountedLoggedAndClaimsNothing) {
  ASSERT_TRUE(start_cluster({.nodes = 2, .extra_json = kFingerprints}));
  fetch(1, "/obj/held-by-b?max_age=600");
  ASSERT_TRUE(wait_for_entries(0, "node-b", 1));
  const std::uint64_t universe = peer_of(0, "node-b")["m"].get<std::uint64_t>();
  // A later epoch than node-b's: an earlier one is refused before anything else.
  const std::uint64_t epoch = peer_of(0, "node-b")["summary_epoch"].get<std::uint64_t>() + 1;
  kill_node(1);
  // A correctly signed full of node-b's, hashed with MD5 where node-a hashes
  // with XXH3: its fingerprints would claim the wrong keys.
  const auto md5 = filters::Hasher::create(filters::HashId::md5);
  ASSERT_TRUE(md5.ok());
  const protocol::SummaryInfo info{"node-b", epoch, 1, {universe, 1}, *md5, 2};
  const std::vector<std::uint64_t> set{5, universe - 1};
  const auto message = protocol::encode_fingerprint_full(info, set, options_.secret);
  ASSERT_TRUE(message.ok()) << message.error().message();
  HttpClient peer_client({.host = "127.0.0.1",
                          .port = nodes_[0].peer_port,
                          .timeout = std::chrono::seconds(10),
                          .reuse_connection = false});
  const auto reply = peer_client.send(
      {.method = "POST",
       .target = kSummaryPath,
       .headers = {{"Sumcache-Channel-Auth", channel_auth({.path = kSummaryPath,
                                                           .length = message->size(),
                                                           .secret = options_.secret})},
                   {"Content-Type", kSummaryType}},
       .body = *message});
  ASSERT_TRUE(reply.ok()) << reply.error().message();
  EXPECT_EQ(reply->status, 400U) << reply->body;

  // Counted, logged once with the reason, and node-b's slot claims nothing now.
  const json peers = admin_json(0, "/peers");
  EXPECT_EQ(peers["directory"]["fingerprints_refused"], 1);
  EXPECT_EQ(peers["directory"]["fingerprint_entries"], 0);
  EXPECT_NE(log_of(0).find("peer node-b: fingerprint summary not usable"), std::string::npos)
      << log_of(0);
  const std::string metrics = admin(0, "/metrics").body;
  EXPECT_NE(metrics.find("\nsumcache_peer_fingerprints_refused_total 1\n"), std::string::npos)
      << metrics;
}

}  // namespace
}  // namespace sumcache::testing
