// Cluster-wide request coalescing (docs/peers.md, "Miss policy"): real
// sumcached nodes and a real origin on loopback. With cluster.miss_policy
// "owner" a URL new to the cluster, requested at every node at once, is
// fetched from the origin once; with "origin" once per node. An owner that is
// down or does not answer leaves the miss to the origin, counted.

#include <signal.h>

#include <fstream>
#include <latch>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "daemon/peer/rendezvous_owner.h"
#include "tests/daemon/integration/cluster_fixture.h"
#include "tests/support/deterministic_body.h"

namespace sumcache::testing {
namespace {

using Json = nlohmann::json;

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

class ClusterOwner : public ClusterTest {
 protected:
  bool start_with(const std::string& policy, std::size_t nodes, int update_interval_ms = 100,
                  const std::string& extra_json = "") {
    ClusterOptions options;
    options.nodes = nodes;
    options.update_interval_ms = update_interval_ms;
    options.extra_cluster_json = R"("miss_policy": ")" + policy + R"(",)";
    options.extra_json = extra_json;
    return start_cluster(options) && wait_until_all_live();
  }

  // Every node sees every peer up with a summary: the same live set everywhere,
  // so every node picks the same owner. Polls for 20 s at most.
  bool wait_until_all_live() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      bool all = true;
      for (std::size_t n = 0; n < nodes_.size() && all; ++n) all = every_peer_live(n);
      if (all) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << "peers not all live; /peers at node-a: " << admin(0, "/peers").body;
    return false;
  }

  bool every_peer_live(std::size_t node) {
    const Json j = Json::parse(admin(node, "/peers").body, nullptr, false);
    if (j.is_discarded() || !j.contains("peers")) return false;
    for (const auto& p : j["peers"]) {
      if (p.value("state", "") != "up" || !p.value("has_summary", false)) return false;
    }
    return true;
  }

  bool wait_for_state(std::size_t node, const std::string& peer, const std::string& state) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      const Json j = Json::parse(admin(node, "/peers").body, nullptr, false);
      if (!j.is_discarded() && j.contains("peers")) {
        for (const auto& p : j["peers"]) {
          if (p.value("id", "") == peer && p.value("state", "") == state) return true;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // The owner's id, as every node computes it, of `path` among `live`.
  std::string owner_of(const std::string& path, const std::vector<std::string_view>& live) const {
    return std::string(live[daemon::rendezvous_owner(origin_url(path), live)]);
  }

  // A path new to this test, named from `stem`, whose owner among `live` is `owner`.
  std::string path_owned_by(const std::string& stem, const std::string& owner,
                            const std::vector<std::string_view>& live) const {
    for (int i = 0; i < 1000; ++i) {
      const std::string path = "/obj/" + stem + "-" + std::to_string(i) + "?max_age=600&size=3000";
      if (owner_of(path, live) == owner) return path;
    }
    ADD_FAILURE() << "no path owned by " << owner;
    return {};
  }

  std::string metrics_of(std::size_t node) { return admin(node, "/metrics").body; }

  // How often the origin was asked for `path` (the origin logs paths without the query).
  std::size_t origin_fetches(const std::string& path) {
    return origin_.log().count(path.substr(0, path.find('?')));
  }

  // `clients` concurrent GETs of `path` at every node, released together.
  std::vector<ClientResponse> flash_crowd(const std::string& path, std::size_t clients) {
    const std::size_t total = nodes_.size() * clients;
    std::vector<ClientResponse> responses(total);
    std::latch start(static_cast<std::ptrdiff_t>(total));
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < total; ++t) {
      threads.emplace_back([&, t] {
        HttpClient client({.host = "127.0.0.1",
                           .port = nodes_[t % nodes_.size()].http_port,
                           .timeout = std::chrono::seconds(20),
                           .reuse_connection = false});
        start.arrive_and_wait();
        auto r =
            client.send({.method = "GET", .target = origin_url(path), .headers = {}, .body = {}});
        if (r.ok()) responses[t] = std::move(r).value();
      });
    }
    for (auto& thread : threads) thread.join();
    return responses;
  }
};

constexpr std::size_t kCrowdPerNode = 8;
// The origin holds each answer back this long, so that the crowd's requests overlap.
constexpr const char* kCrowdPath = "/obj/crowd?max_age=600&size=20000&delay_ms=300";

TEST_F(ClusterOwner, AFlashCrowdAtEveryNodeMakesOneOriginFetch) {
  ASSERT_TRUE(start_with("owner", 4));
  const auto responses = flash_crowd(kCrowdPath, kCrowdPerNode);
  const std::string expected = deterministic_body("/obj/crowd", "", 20000);
  std::map<std::string, std::size_t> by_x_cache;
  for (const auto& r : responses) {
    EXPECT_EQ(r.status, 200U);
    EXPECT_TRUE(r.body == expected) << "wrong body, X-Cache " << x_cache(r);
    ++by_x_cache[x_cache(r)];
  }
  EXPECT_EQ(origin_.log().count("/obj/crowd"), 1U) << log_of(0);
  // Three nodes of four went through the owner; none fetched on its own.
  const std::string owner = owner_of(kCrowdPath, {"node-a", "node-b", "node-c", "node-d"});
  std::size_t via_owner = 0;
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const std::string log = access_log_of(n);
    via_owner += count_matches(log, "CARP/" + owner);
    if (nodes_[n].id != owner) {
      EXPECT_EQ(count_matches(log, "DIRECT/"), 0U) << log;
    }
  }
  EXPECT_GE(via_owner, 3U);
  EXPECT_GE(by_x_cache["OWNER"], 3U);
}

TEST_F(ClusterOwner, WithTheOriginPolicyTheSameCrowdFetchesOncePerNode) {
  // Today's behaviour, for comparison: each node coalesces its own clients only.
  ASSERT_TRUE(start_with("origin", 4));
  const auto responses = flash_crowd(kCrowdPath, kCrowdPerNode);
  for (const auto& r : responses) EXPECT_EQ(r.status, 200U);
  const std::size_t fetches = origin_.log().count("/obj/crowd");
  EXPECT_GT(fetches, 1U);
  EXPECT_LE(fetches, nodes_.size());
}

TEST_F(ClusterOwner, AMissGoesThroughItsOwnerAndIsStoredThere) {
  ASSERT_TRUE(start_with("owner", 3));
  const std::vector<std::string_view> all{"node-a", "node-b", "node-c"};
  const std::string path = path_owned_by("via-b", "node-b", all);
  const auto r = fetch(0, path);
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(x_cache(r), "OWNER");
  EXPECT_TRUE(wait_for_access(0, "CARP/node-b")) << access_log_of(0);
  EXPECT_TRUE(wait_for_access(1, "TCP_MISS/200")) << access_log_of(1);
  EXPECT_EQ(origin_fetches(path), 1U);
  // Both the owner and the requester hold it now (store_peer_hits).
  for (std::size_t n : {0U, 1U}) {
    EXPECT_EQ(fetch(n, path, {{"Cache-Control", "only-if-cached"}}).status, 200U) << n;
  }
  // A key this node owns goes to the origin directly.
  const std::string mine = path_owned_by("via-a", "node-a", all);
  EXPECT_EQ(x_cache(fetch(0, mine)), "MISS");
  EXPECT_EQ(count_matches(access_log_of(1), "via-a"), 0U);
  const std::string metrics = metrics_of(0);
  EXPECT_TRUE(has_line(metrics, "sumcache_owner_fetches_total 1")) << metrics;
  EXPECT_TRUE(has_line(metrics, "sumcache_owner_fallbacks_total 0")) << metrics;
  EXPECT_TRUE(has_line(metrics, R"(sumcache_requests_total{result="owner"} 1)")) << metrics;
}

TEST_F(ClusterOwner, SighupSwitchesThePolicyLive) {
  ASSERT_TRUE(start_with("origin", 3));
  const std::vector<std::string_view> all{"node-a", "node-b", "node-c"};
  const std::string before = path_owned_by("before-hup", "node-b", all);
  EXPECT_EQ(x_cache(fetch(0, before)), "MISS");
  // node-a alone switches: the policy is the asking node's.
  std::string config;
  {
    std::ifstream in(nodes_[0].config);
    config.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto at = config.find(R"("miss_policy": "origin")");
  ASSERT_NE(at, std::string::npos) << config;
  config.replace(at, std::string(R"("miss_policy": "origin")").size(), R"("miss_policy": "owner")");
  std::ofstream(nodes_[0].config) << config;
  ASSERT_EQ(::kill(nodes_[0].process->pid(), SIGHUP), 0);
  ASSERT_TRUE(nodes_[0].process->wait_for_line("SIGHUP: reloaded", std::chrono::seconds(10),
                                               Output::err))
      << log_of(0);
  const std::string after = path_owned_by("after-hup", "node-b", all);
  EXPECT_EQ(x_cache(fetch(0, after)), "OWNER") << log_of(0);
}

TEST_F(ClusterOwner, TheOwnerFetchMarkerFromAClientIsRefused) {
  ASSERT_TRUE(start_with("owner", 2));
  const auto r = fetch(0, "/obj/sneaky?max_age=600", {{"Sumcache-Owner-Fetch", "1"}});
  EXPECT_EQ(r.status, 403U);
  EXPECT_EQ(origin_.log().count("/obj/sneaky"), 0U);
}

TEST_F(ClusterOwner, AnOwnerThatIsDownLeavesTheMissToTheOriginCounted) {
  // Summaries every second: the killed owner is still live at node-a when the
  // miss comes (three failed pushes make it down, the first a second away).
  ASSERT_TRUE(start_with("owner", 3, 1000));
  const std::vector<std::string_view> all{"node-a", "node-b", "node-c"};
  const std::string path = path_owned_by("orphan", "node-b", all);
  kill_node(1);
  const auto r = fetch(0, path);
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(x_cache(r), "MISS") << log_of(0);
  EXPECT_EQ(origin_fetches(path), 1U);
  std::string metrics = metrics_of(0);
  EXPECT_TRUE(has_line(metrics, "sumcache_owner_fallbacks_total 1")) << metrics;
  EXPECT_NE(log_of(0).find("owner node-b failed for " + origin_url(path)), std::string::npos)
      << log_of(0);

  // Once node-a holds node-b down, node-b owns nothing: its keys go to the others.
  ASSERT_TRUE(wait_for_state(0, "node-b", "down")) << admin(0, "/peers").body;
  const std::string next = path_owned_by("heir", "node-b", all);
  const std::string heir = owner_of(next, {"node-a", "node-c"});
  EXPECT_EQ(x_cache(fetch(0, next)), heir == "node-a" ? "MISS" : "OWNER");
  metrics = metrics_of(0);
  EXPECT_TRUE(has_line(metrics, "sumcache_owner_fallbacks_total 1")) << metrics;
}

TEST_F(ClusterOwner, AnOwnerThatDoesNotAnswerInTimeLeavesTheMissToTheOrigin) {
  // The owner's answer may take the origin's first-byte time (1.5 s here)
  // plus peer_timeout_ms (1 s in the fixture); node-b stopped takes longer.
  ASSERT_TRUE(
      start_with("owner", 3, 1000, R"("limits": {"upstream_first_byte_timeout_ms": 1500},)"));
  const std::vector<std::string_view> all{"node-a", "node-b", "node-c"};
  const std::string path = path_owned_by("stalled", "node-b", all);
  ASSERT_EQ(::kill(nodes_[1].process->pid(), SIGSTOP), 0);
  const auto started = std::chrono::steady_clock::now();
  const auto r = fetch(0, path);
  const auto took = std::chrono::steady_clock::now() - started;
  // Counted before node-b resumes: it then reads the owner fetch still queued
  // on its socket and may fetch the URL itself, late but harmless.
  EXPECT_EQ(origin_fetches(path), 1U);
  ASSERT_EQ(::kill(nodes_[1].process->pid(), SIGCONT), 0);
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(x_cache(r), "MISS") << log_of(0);
  EXPECT_GE(took, std::chrono::milliseconds(2400));
  const std::string metrics = metrics_of(0);
  EXPECT_TRUE(has_line(metrics, "sumcache_owner_fallbacks_total 1")) << metrics;
}

}  // namespace
}  // namespace sumcache::testing
