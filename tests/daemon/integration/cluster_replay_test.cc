// Replayed invalidation batches (issue 27, item 2): two real sumcached nodes
// and a real origin on loopback, with a recording relay on node-a's peer
// channel to node-b. Batches captured off the wire in node-a's earlier runs
// (epochs), posted again to node-b after node-a restarted, must change
// nothing there: a receiver never goes back to an older epoch
// (docs/protocol.md, "Receiver state"). Before that rule each replay was taken
// as node-a restarting, and node-b revalidated everything it held. A batch
// replayed byte for byte is refused at its head (its nonce was seen); one
// replayed under a freshly signed head (an attacker who holds the secret, or
// one within the window whose head the nonce check would not catch) reaches
// the epoch rule, which must refuse it too.

#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/daemon/integration/cluster_fixture.h"
#include "tests/daemon/integration/recording_relay.h"
#include "tests/support/channel_head.h"
#include "tests/support/raw_client.h"

namespace sumcache::testing {
namespace {

using Json = nlohmann::json;

constexpr const char* kInvalidations = "/sumcache/v1/invalidations";
constexpr std::size_t kObjects = 5;

class ClusterReplay : public ClusterTest {
 protected:
  // (Re)starts node-a with its peer entry for node-b on the relay: every
  // request it sends node-b's peer listener goes through it. A second apart
  // at least, so that the new epoch (its clock's seconds in the high bits) is
  // above the last one.
  bool start_a_through_relay() {
    if (nodes_[0].process) kill_node(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    const std::uint16_t real = nodes_[1].peer_port;
    nodes_[1].peer_port = relay_->port();
    const bool started = start_node(0);
    nodes_[1].peer_port = real;
    return started;
  }

  // Purges `path` at node-a and returns the batch that carried it to node-b,
  // as it went over the wire (head and body).
  std::string purge_and_capture(const std::string& path) {
    const std::size_t before = relay_->posts_to(kInvalidations).size();
    const auto r = admin(0, "/purge", "POST", Json{{"url", origin_url(path)}}.dump(), true);
    // 404 when node-a itself held nothing; the batch goes out all the same.
    EXPECT_TRUE(r.status == 200U || r.status == 404U) << r.status << " " << r.body;
    EXPECT_EQ(Json::parse(r.body, nullptr, false)["nodes"]["acked"], 2) << r.body;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      const auto posts = relay_->posts_to(kInvalidations);
      if (posts.size() > before) return posts.back();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "no invalidation batch went through the relay";
    return {};
  }

  // Posts `captured` to node-b's peer listener again, byte for byte, or with
  // its body under a new head signed now with a fresh nonce: the status.
  unsigned replay(const std::string& captured, bool fresh_head = true) {
    std::string bytes = captured;
    if (fresh_head) {
      const std::string body = captured.substr(captured.find("\r\n\r\n") + 4);
      bytes = channel_head({.path = kInvalidations,
                            .from = "node-a",
                            .to = "node-b",
                            .length = body.size(),
                            .secret = ClusterOptions{}.secret}) +
              body;
    }
    const auto reply =
        raw_exchange("127.0.0.1", nodes_[1].peer_port, bytes, std::chrono::seconds(5));
    if (!reply.ok()) return 0;
    const auto answers = parse_responses(reply->data);
    return answers.empty() ? 0 : answers.front().status;
  }

  std::string object(std::size_t i) const {
    return "/obj/replay-" + std::to_string(i) + "?max_age=600&size=2000";
  }

  std::size_t hits_at_b() {
    std::size_t hits = 0;
    for (std::size_t i = 0; i < kObjects; ++i) {
      const std::string seen = x_cache(fetch(1, object(i)));
      hits += seen == "HIT";
      if (seen != "HIT") std::cerr << object(i) << ": X-Cache " << seen << "\n";
    }
    return hits;
  }

  std::string stale_refusals_at_b() {
    const std::string metrics = admin(1, "/metrics").body;
    const std::string series = "sumcache_peer_listener_refused_total{reason=\"stale_epoch\"} ";
    const auto at = metrics.find(series);
    if (at == std::string::npos) return "absent";
    return metrics.substr(at + series.size(), metrics.find('\n', at) - at - series.size());
  }

  std::unique_ptr<RecordingRelay> relay_;
};

TEST_F(ClusterReplay, BatchesOfOlderEpochsReplayedChangeNothingAndAreCounted) {
  ClusterOptions o;
  o.nodes = 2;
  ASSERT_TRUE(start_cluster(o));
  relay_ = std::make_unique<RecordingRelay>(nodes_[1].peer_port);
  ASSERT_TRUE(relay_->start());

  // Three runs of node-a, each with a purge that reaches node-b through the
  // relay: the first two runs' batches are captured.
  ASSERT_TRUE(start_a_through_relay());
  const std::string first = purge_and_capture("/obj/purged-1");
  ASSERT_TRUE(start_a_through_relay());
  const std::string second = purge_and_capture("/obj/purged-2");
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(second.empty());
  ASSERT_TRUE(start_a_through_relay());
  purge_and_capture("/obj/purged-3");  // node-b takes node-a's third epoch: a real restart

  // node-b stores objects after that restart (a second later: stored times
  // are compared with the watermark in whole seconds): hits from now on.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  for (std::size_t i = 0; i < kObjects; ++i) ASSERT_EQ(x_cache(fetch(1, object(i))), "MISS");
  ASSERT_EQ(hits_at_b(), kObjects);
  ASSERT_EQ(stale_refusals_at_b(), "0");

  // Byte for byte, each head was used once already: refused at the head.
  EXPECT_EQ(replay(first, false), 401U);
  EXPECT_EQ(replay(second, false), 401U);
  EXPECT_EQ(hits_at_b(), kObjects) << "a batch replayed byte for byte was taken";

  // The first run's batch under a fresh head: refused (409), and nothing revalidates.
  EXPECT_EQ(replay(first), 409U);
  EXPECT_EQ(hits_at_b(), kObjects) << "a replayed batch of an older epoch was taken";
  EXPECT_EQ(stale_refusals_at_b(), "1");

  // Two captured epochs in turn: neither is ever taken.
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(replay(second), 409U);
    EXPECT_EQ(replay(first), 409U);
  }
  EXPECT_EQ(hits_at_b(), kObjects) << "alternating two older epochs was taken";
  EXPECT_EQ(stale_refusals_at_b(), "5");
  EXPECT_NE(log_of(1).find(R"(stale_epoch: an invalidation batch of node "node-a" with epoch)"),
            std::string::npos)
      << log_of(1);

  // node-a's own channel still works: a purge now reaches node-b.
  purge_and_capture(object(0));
  EXPECT_EQ(local_status(1, object(0)), 504U);
}

}  // namespace
}  // namespace sumcache::testing
