// Real sumcached nodes with cluster.transport "redis" and a real redis-server
// (docs/peers.md, "Redis transport"): no node names another, they find each
// other in Redis; a miss goes to the claiming peer only; a node added later
// bootstraps from Redis; Redis killed and restarted mid-run fails no request
// and the summaries catch up; forged messages and member records are refused
// and counted; two servers with node ids hashed over both still route.

#include <signal.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/daemon/admin/promtool.h"
#include "tests/daemon/integration/cluster_fixture.h"
#include "tests/support/redis_process.h"

namespace sumcache::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Fast membership for tests: a heartbeat every 200 ms, gone after 1 s unless
// a test asks for a longer member expiry.
std::string redis_cluster_json(const std::vector<std::uint16_t>& ports,
                               std::chrono::milliseconds member_expiry) {
  std::string servers;
  for (const auto port : ports) {
    if (!servers.empty()) servers += ", ";
    servers += R"({"address": "127.0.0.1", "port": )" + std::to_string(port) + "}";
  }
  return R"("transport": "redis", "redis": {"servers": [)" + servers +
         R"(], "heartbeat_ms": 200, "member_expiry_ms": )" +
         std::to_string(member_expiry.count()) + R"(, "block_ms": 200,
            "connect_timeout_ms": 500, "command_timeout_ms": 500},)";
}

// Replaces the last byte of node `from`'s full summary (its HMAC tag's) and
// appends it to node `to`'s stream as the next sequence, atomically (no race
// with the node's own XADD). With flip 0 the message is appended unchanged. An
// optional ARGV[2] is the lowest sequence to use: a stream just started over
// may be empty, and a reader skips an entry at or below the sequence it holds.
constexpr const char* kForgeScript =
    R"(local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local seq = 0
if #top > 0 then seq = tonumber(string.match(top[1][1], '^(%d+)-')) end
if ARGV[2] and seq < tonumber(ARGV[2]) then seq = tonumber(ARGV[2]) end
local m = redis.call('GET', KEYS[1])
m = string.sub(m, 1, -2) .. string.char((string.byte(m, -1) + tonumber(ARGV[1])) % 256)
return redis.call('XADD', KEYS[2], (seq + 1) .. '-0', 'm', m))";

// FNV-1a 64 of a node id mod the servers: which server holds its keys (docs/peers.md).
std::size_t shard(const std::string& id, std::size_t servers) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : id) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return static_cast<std::size_t>(h % servers);
}

class ClusterRedis : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    if (!RedisProcess::installed())
      GTEST_FAIL() << "redis-server is not installed: run scripts/setup";
  }

  bool start_redis_cluster(std::size_t nodes, std::size_t late = 0, std::size_t servers = 1,
                           const std::string& extra_json = {}) {
    redis_.resize(servers);
    std::vector<std::uint16_t> ports;
    for (auto& r : redis_) {
      r = std::make_unique<RedisProcess>();
      if (const std::string why = r->start(); !why.empty()) {
        ADD_FAILURE() << "redis-server: " << why;
        return false;
      }
      ports.push_back(r->port());
    }
    return start_cluster({.nodes = nodes,
                          .extra_cluster_json = redis_cluster_json(ports, member_expiry_),
                          .extra_json = extra_json,
                          .late_nodes = late,
                          .no_peer_lists = true});
  }

  std::chrono::milliseconds member_expiry_ = 1000ms;

  json admin_json(std::size_t node, const std::string& path) {
    return json::parse(admin(node, path).body, nullptr, false);
  }
  json peer_of(std::size_t node, const std::string& id) {
    const json peers = admin_json(node, "/peers");
    if (!peers.is_object()) return nullptr;
    for (const json& p : peers["peers"]) {
      if (p["id"] == id) return p;
    }
    return nullptr;
  }
  // Waits until node holds a summary of peer `id` with at least `entries` keys.
  bool wait_for_entries(std::size_t node, const std::string& id, std::uint64_t entries,
                        std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      const json p = peer_of(node, id);
      if (p.is_object() && p["has_summary"] == true && !p["summary_expired"].get<bool>() &&
          p["entries"].get<std::uint64_t>() >= entries) {
        return true;
      }
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }
  // Every started node has joined every other from Redis and read its summary
  // there (both ways: a node answers only its peers' object requests).
  bool wait_for_members() {
    for (std::size_t node = 0; node < nodes_.size(); ++node) {
      if (!nodes_[node].process) continue;
      for (std::size_t other = 0; other < nodes_.size(); ++other) {
        if (other == node || !nodes_[other].process) continue;
        if (!wait_for_entries(node, nodes_[other].id, 0)) {
          ADD_FAILURE() << nodes_[node].id << " has no summary of " << nodes_[other].id << ": "
                        << admin(node, "/peers").body;
          return false;
        }
      }
    }
    return true;
  }
  // The value of one series of node's /metrics ("name{labels}" as written); -1 when absent.
  double metric(std::size_t node, const std::string& series) {
    const std::string text = admin(node, "/metrics").body;
    const auto at = text.find("\n" + series + " ");
    if (at == std::string::npos) return -1;
    return std::stod(text.substr(at + series.size() + 2));
  }
  bool wait_for_metric(std::size_t node, const std::string& series, double at_least,
                       std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (metric(node, series) >= at_least) return true;
      std::this_thread::sleep_for(50ms);
    }
    return false;
  }

  std::vector<std::unique_ptr<RedisProcess>> redis_;
};

TEST_F(ClusterRedis, ThreeNodesFindEachOtherAndRouteAMissToTheClaimingPeerOnly) {
  ASSERT_TRUE(start_redis_cluster(3));
  ASSERT_TRUE(wait_for_members());
  const auto first = fetch(0, "/obj/redis-first?max_age=600&size=5000");
  ASSERT_EQ(first.status, 200U);
  // Neither lists node-a: it joined both from Redis, and its summary came from there.
  ASSERT_TRUE(wait_for_entries(1, "node-a", 1)) << admin(1, "/peers").body << log_of(1);
  ASSERT_TRUE(wait_for_entries(2, "node-a", 1)) << admin(2, "/peers").body;
  EXPECT_EQ(peer_of(1, "node-a")["source"], "redis");

  const auto at_b = fetch(1, "/obj/redis-first?max_age=600&size=5000");
  EXPECT_EQ(x_cache(at_b), "PEER-HIT");
  EXPECT_EQ(at_b.body, first.body);
  EXPECT_EQ(origin_.log().count("/obj/redis-first"), 1U);
  // node-c's summary claimed nothing: it was never asked.
  EXPECT_EQ(access_log_of(2).find("/obj/redis-first"), std::string::npos);

  // A key stored after the first full reaches the peers in a delta (a stream entry).
  fetch(0, "/obj/redis-second?max_age=600&size=3000");
  ASSERT_TRUE(wait_for_entries(2, "node-a", 2));
  EXPECT_EQ(x_cache(fetch(2, "/obj/redis-second?max_age=600&size=3000")), "PEER-HIT");
  EXPECT_EQ(origin_.log().count("/obj/redis-second"), 1U);

  // No summary travelled over HTTP: pushes and pulls are the mesh's.
  for (std::size_t node : {0, 1, 2}) {
    const json peers = admin_json(node, "/peers");
    EXPECT_EQ(peers["transport"], "redis");
    EXPECT_EQ(peers["redis"]["members"], 3) << peers;
    EXPECT_EQ(peers["redis"]["servers"][0]["up"], true);
    for (const json& p : peers["peers"]) EXPECT_EQ(p["messages_sent"], 0) << p;
  }
  EXPECT_GE(metric(0, R"(sumcache_redis_messages_total{direction="published",kind="delta"})"), 1);
  EXPECT_GE(metric(1, R"(sumcache_redis_messages_total{direction="read",kind="full"})"), 2)
      << admin(1, "/peers").body;
  EXPECT_GE(metric(2, R"(sumcache_redis_messages_total{direction="read",kind="delta"})"), 1);
  EXPECT_EQ(metric(1, "sumcache_redis_members"), 3);
  const std::string server = "127.0.0.1:" + std::to_string(redis_[0]->port());
  EXPECT_EQ(metric(1, R"(sumcache_redis_up{server=")" + server + R"("})"), 1);
  EXPECT_GE(metric(1, R"(sumcache_redis_commands_total{server=")" + server + R"("})"), 3);
  const PromtoolCheck check = promtool_check(admin(1, "/metrics").body);
  EXPECT_TRUE(check.passed) << check.output;
  // What the docs say is in Redis: both hashes, each node's full and stream.
  EXPECT_EQ(redis_[0]->cli({"HLEN", "sumcache:members"}), "3\n");
  EXPECT_EQ(redis_[0]->cli({"TYPE", "sumcache:node:node-a:deltas"}), "stream\n");
  EXPECT_EQ(redis_[0]->cli({"TYPE", "sumcache:node:node-c:full"}), "string\n");
  // The heartbeats go on: every node's seen time moves.
  const std::string seen = redis_[0]->cli({"HGETALL", "sumcache:seen"});
  std::this_thread::sleep_for(600ms);
  const std::string later = redis_[0]->cli({"HGETALL", "sumcache:seen"});
  for (const char* id : {"node-a", "node-b", "node-c"}) {
    const auto value = [id](const std::string& all) {
      const auto at = all.find(std::string(id) + "\n");
      return at == std::string::npos ? std::string() : all.substr(at, all.find('\n', at + 7) - at);
    };
    EXPECT_NE(value(seen), value(later)) << id << ": " << seen << " then " << later;
  }
}

TEST_F(ClusterRedis, ANodeAddedLaterBootstrapsFromRedisAndRoutesWithinASecond) {
  ASSERT_TRUE(start_redis_cluster(3, 1));
  ASSERT_TRUE(wait_for_members());
  ASSERT_EQ(fetch(0, "/obj/redis-late?max_age=600&size=4000").status, 200U);
  ASSERT_TRUE(wait_for_entries(1, "node-a", 1));
  ASSERT_TRUE(start_node(2));
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(wait_for_entries(2, "node-a", 1, 1s)) << admin(2, "/peers").body << log_of(2);
  // node-a must know node-c too: it answers only its peers' object requests.
  while (!peer_of(0, "node-c").is_object() && std::chrono::steady_clock::now() - started < 1s) {
    std::this_thread::sleep_for(10ms);
  }
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_LT(took, 1s);
  EXPECT_EQ(x_cache(fetch(2, "/obj/redis-late?max_age=600&size=4000")), "PEER-HIT");
  EXPECT_EQ(origin_.log().count("/obj/redis-late"), 1U);
  // And the others learn of it: its own documents reach them.
  ASSERT_EQ(fetch(2, "/obj/redis-from-c?max_age=600&size=2000").status, 200U);
  // Two: node-c also stored redis-late, its peer hit (cluster.store_peer_hits), and a
  // summary holding that one alone does not claim redis-from-c yet.
  ASSERT_TRUE(wait_for_entries(0, "node-c", 2)) << admin(0, "/peers").body;
  EXPECT_EQ(x_cache(fetch(0, "/obj/redis-from-c?max_age=600&size=2000")), "PEER-HIT");
}

TEST_F(ClusterRedis, RedisKilledAndRestartedFailsNoRequestAndSummariesCatchUp) {
  ASSERT_TRUE(start_redis_cluster(3));
  ASSERT_TRUE(wait_for_members());
  ASSERT_EQ(fetch(0, "/obj/redis-before?max_age=600&size=3000").status, 200U);
  ASSERT_TRUE(wait_for_entries(1, "node-a", 1));
  ASSERT_EQ(x_cache(fetch(1, "/obj/redis-before?max_age=600&size=3000")), "PEER-HIT");

  // Clients keep asking every node, hits and misses, through the outage.
  std::atomic<bool> done{false};
  std::atomic<int> sent{0};
  std::atomic<int> failed{0};
  std::thread clients([&] {
    for (int i = 0; !done && i < 2000; ++i) {
      const std::size_t node = static_cast<std::size_t>(i % 3);
      const std::string path =
          i % 2 == 0 ? "/obj/redis-before?max_age=600&size=3000"
                     : "/obj/redis-load-" + std::to_string(i) + "?max_age=600&size=1000";
      if (fetch(node, path).status != 200) ++failed;
      ++sent;
      std::this_thread::sleep_for(20ms);
    }
  });
  std::this_thread::sleep_for(300ms);
  redis_[0]->stop();
  // Stored while Redis is away: no node can learn of it yet.
  ASSERT_EQ(fetch(0, "/obj/redis-during?max_age=600&size=3000").status, 200U);
  std::this_thread::sleep_for(1500ms);
  EXPECT_TRUE(wait_for_metric(0, "sumcache_redis_outages_total", 1));
  const std::string server = "127.0.0.1:" + std::to_string(redis_[0]->port());
  EXPECT_EQ(metric(1, R"(sumcache_redis_up{server=")" + server + R"("})"), 0);
  // Nobody left while Redis was away.
  EXPECT_TRUE(peer_of(1, "node-a").is_object());
  ASSERT_EQ(redis_[0]->restart(), "");
  ASSERT_EQ(fetch(0, "/obj/redis-after?max_age=600&size=3000").status, 200U);
  // Caught up: node-a's summary at node-b holds every key node-a stored.
  const std::uint64_t held = admin_json(0, "/filter")["entries"].get<std::uint64_t>();
  EXPECT_TRUE(wait_for_entries(1, "node-a", held, 15s)) << admin(1, "/peers").body << log_of(1);
  EXPECT_TRUE(wait_for_entries(2, "node-a", held, 15s)) << admin(2, "/peers").body << log_of(2);
  done = true;
  clients.join();
  EXPECT_GT(sent.load(), 20);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(x_cache(fetch(1, "/obj/redis-during?max_age=600&size=3000")), "PEER-HIT");
  EXPECT_EQ(x_cache(fetch(2, "/obj/redis-after?max_age=600&size=3000")), "PEER-HIT");
  EXPECT_EQ(origin_.log().count("/obj/redis-during"), 1U);
  EXPECT_GE(
      metric(1, R"(sumcache_redis_connects_total{server=")" + server + R"(",result="failed"})"), 1);
  EXPECT_GE(metric(1, R"(sumcache_redis_connects_total{server=")" + server + R"(",result="ok"})"),
            3);
  EXPECT_NE(log_of(1).find("redis"), std::string::npos);
}

// A long outage backs every link off to its cap, and a Redis restarted empty
// has lost every member record. The cap is below member_expiry_ms
// (daemon/redis/redis_backoff.h), so each node writes its record again before
// the first node back may drop anyone: nobody leaves, nobody joins again.
TEST_F(ClusterRedis, RedisRestartedEmptyAfterALongOutageDropsNoNode) {
  ASSERT_TRUE(start_redis_cluster(3));
  ASSERT_TRUE(wait_for_members());
  redis_[0]->stop();
  // Long enough for every link's back-off to reach its cap (5 s without one).
  std::this_thread::sleep_for(8s);
  ASSERT_EQ(redis_[0]->restart(), "");
  const std::string up =
      R"(sumcache_redis_up{server="127.0.0.1:)" + std::to_string(redis_[0]->port()) + R"("})";
  for (std::size_t node = 0; node < 3; ++node) {
    EXPECT_TRUE(wait_for_metric(node, up, 1, 10s)) << log_of(node);
  }
  // Three member expiries after the last node is back: any drop has happened.
  std::this_thread::sleep_for(3s);
  for (std::size_t node = 0; node < 3; ++node) {
    EXPECT_EQ(metric(node, "sumcache_peers_left_total"), 0) << log_of(node);
    EXPECT_EQ(metric(node, "sumcache_peers_joined_total"), 2) << log_of(node);
    EXPECT_EQ(count_matches(log_of(node), "no heartbeat in redis"), 0U) << log_of(node);
  }
}

TEST_F(ClusterRedis, ForgedMessagesAndMemberRecordsAreRefusedAndCounted) {
  ASSERT_TRUE(start_redis_cluster(3));
  ASSERT_TRUE(wait_for_members());
  ASSERT_EQ(fetch(0, "/obj/redis-forge?max_age=600&size=3000").status, 200U);
  ASSERT_TRUE(wait_for_entries(1, "node-a", 1));
  ASSERT_TRUE(wait_for_entries(1, "node-c", 0));
  // node-a's own full with its tag's last byte changed, as node-a's next delta.
  const std::string added = redis_[0]->cli(
      {"EVAL", kForgeScript, "2", "sumcache:node:node-a:full", "sumcache:node:node-a:deltas", "1"});
  ASSERT_NE(added.find("-0"), std::string::npos) << added;
  EXPECT_TRUE(
      wait_for_metric(1, R"(sumcache_redis_messages_refused_total{reason="message_bad_tag"})", 1))
      << log_of(1);
  EXPECT_TRUE(
      wait_for_metric(2, R"(sumcache_redis_messages_refused_total{reason="message_bad_tag"})", 1));
  EXPECT_GE(peer_of(1, "node-a")["messages_rejected"].get<int>(), 1);
  EXPECT_NE(log_of(1).find("message_bad_tag of node node-a"), std::string::npos);
  // node-c's genuine full, in node-a's stream: signed, but not node-a's.
  const std::string moved = redis_[0]->cli(
      {"EVAL", kForgeScript, "2", "sumcache:node:node-c:full", "sumcache:node:node-a:deltas", "0"});
  ASSERT_NE(moved.find("-0"), std::string::npos) << moved;
  EXPECT_TRUE(wait_for_metric(
      1, R"(sumcache_redis_messages_refused_total{reason="message_wrong_node"})", 1));

  // A member record for a node that does not exist, its tag not the secret's.
  const std::string forged =
      R"({"id":"node-z","host":"127.0.0.1","http_port":1,"peer_port":2,"icp_port":3,)"
      R"("object_port":4,"weight":1,"epoch":1})"
      "\n" +
      std::string(64, 'a');
  // The record and a fresh heartbeat written together, again while waiting: a
  // record without its heartbeat (or with a stale one) is reaped by whichever
  // node reads it first, and on a loaded machine node-a may read the members
  // later than one member expiry after a single write.
  bool counted = false;
  for (const auto until = std::chrono::steady_clock::now() + 10s;
       !counted && std::chrono::steady_clock::now() < until;) {
    redis_[0]->cli({"EVAL",
                    "local t = redis.call('TIME') redis.call('HSET', KEYS[2], 'node-z', t[1] .. "
                    "'999') return redis.call('HSET', KEYS[1], 'node-z', ARGV[1])",
                    "2", "sumcache:members", "sumcache:seen", forged});
    counted = wait_for_metric(
        0, R"(sumcache_redis_messages_refused_total{reason="member_bad_tag"})", 1, 200ms);
  }
  EXPECT_TRUE(counted);
  EXPECT_FALSE(peer_of(0, "node-z").is_object());
  EXPECT_EQ(metric(0, "sumcache_redis_members"), 3);

  // The nodes still route: node-a's stream went on (it started it over after the entries put
  // there by hand), and its documents reach the peers.
  ASSERT_EQ(fetch(0, "/obj/redis-forge-after?max_age=600&size=3000").status, 200U);
  ASSERT_TRUE(wait_for_entries(1, "node-a", 2)) << admin(1, "/peers").body << log_of(1);
  EXPECT_EQ(x_cache(fetch(1, "/obj/redis-forge-after?max_age=600&size=3000")), "PEER-HIT");
}

// What node-a wrote in Redis in an earlier run (its full summary, its member
// record), put back after it restarted: the held epoch never goes back, so
// node-b refuses both and keeps following node-a's current run.
// node-b refuses an older record only while it has read node-a's current one
// within a member expiry (after that, the older one is taken as a restart with
// the clock set back, docs/peers.md): the expiry here is long enough that a
// loaded machine's slow heartbeat does not cross it.
TEST_F(ClusterRedis, MessagesAndMemberRecordsOfAnEarlierRunAreRefused) {
  member_expiry_ = 5000ms;
  ASSERT_TRUE(start_redis_cluster(2));
  ASSERT_TRUE(wait_for_members());
  // Kept aside on the server: the full is binary, which no argument carries.
  redis_[0]->cli({"EVAL",
                  "redis.call('SET', KEYS[3], redis.call('GET', KEYS[1])) "
                  "redis.call('SET', KEYS[4], redis.call('HGET', KEYS[2], 'node-a')) return 1",
                  "4", "sumcache:node:node-a:full", "sumcache:members", "replay:full",
                  "replay:member"});
  // node-b holds node-a's first run's summary before that run ends.
  std::uint64_t first = 0;
  for (const auto until = std::chrono::steady_clock::now() + 10s;
       first == 0 && std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(20ms)) {
    const json p = peer_of(1, "node-a");
    if (p.is_object() && p["has_summary"] == true) first = p["summary_epoch"].get<std::uint64_t>();
  }
  ASSERT_NE(first, 0U) << admin(1, "/peers").body;
  kill_node(0);
  ASSERT_TRUE(start_node(0));  // a higher epoch: its start time in microseconds
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  std::uint64_t second = first;
  while (second == first && std::chrono::steady_clock::now() < deadline) {
    const json p = peer_of(1, "node-a");
    if (p.is_object() && p["has_summary"] == true) second = p["summary_epoch"].get<std::uint64_t>();
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_GT(second, first) << admin(1, "/peers").body;

  // The first run's full, as node-a's next stream entry.
  const std::string added = redis_[0]->cli(
      {"EVAL", kForgeScript, "2", "replay:full", "sumcache:node:node-a:deltas", "0", "1000000"});
  ASSERT_NE(added.find("-0"), std::string::npos) << added;
  EXPECT_TRUE(wait_for_metric(
      1, R"(sumcache_redis_messages_refused_total{reason="message_stale_epoch"})", 1))
      << log_of(1);
  // The first run's member record put back once, with node-a stopped so that
  // its next heartbeat does not overwrite it before node-b reads it; its
  // heartbeat time is refreshed with it so that node-a is not reaped meanwhile.
  const std::string stale_member =
      R"(sumcache_redis_messages_refused_total{reason="member_stale_epoch"})";
  const pid_t node_a = nodes_[0].process->pid();
  ASSERT_EQ(::kill(node_a, SIGSTOP), 0);
  std::this_thread::sleep_for(50ms);  // a heartbeat node-a sent just before lands first
  redis_[0]->cli({"EVAL",
                  "local t = redis.call('TIME') redis.call('HSET', KEYS[3], 'node-a', t[1] .. "
                  "string.format('%03d', math.floor(t[2] / 1000))) "
                  "return redis.call('HSET', KEYS[1], 'node-a', redis.call('GET', KEYS[2]))",
                  "3", "sumcache:members", "replay:member", "sumcache:seen"});
  const bool counted = wait_for_metric(1, stale_member, 1, 4s);
  ASSERT_EQ(::kill(node_a, SIGCONT), 0);
  EXPECT_TRUE(counted) << log_of(1);
  const json held = peer_of(1, "node-a");
  ASSERT_TRUE(held.is_object()) << admin(1, "/peers").body << log_of(1);
  EXPECT_EQ(held["summary_epoch"], second) << held;
  EXPECT_NE(log_of(1).find("below the epoch held"), std::string::npos);

  // node-b still follows node-a's current run.
  ASSERT_EQ(fetch(0, "/obj/redis-replay-after?max_age=600&size=3000").status, 200U);
  ASSERT_TRUE(wait_for_entries(1, "node-a", 1)) << admin(1, "/peers").body << log_of(1);
  EXPECT_EQ(x_cache(fetch(1, "/obj/redis-replay-after?max_age=600&size=3000")), "PEER-HIT");
  EXPECT_EQ(peer_of(1, "node-a")["summary_epoch"], second) << admin(1, "/peers").body;
}

// A node that stops heartbeating leaves every table after member_expiry_ms,
// and its two fields are reaped from Redis.
TEST_F(ClusterRedis, ANodeThatStopsLeavesAfterTheMemberExpiryAndIsReaped) {
  ASSERT_TRUE(start_redis_cluster(3));
  ASSERT_TRUE(wait_for_members());
  kill_node(2);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline &&
         (peer_of(0, "node-c").is_object() || peer_of(1, "node-c").is_object() ||
          redis_[0]->cli({"HEXISTS", "sumcache:members", "node-c"}) != "0\n")) {
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_FALSE(peer_of(0, "node-c").is_object()) << admin(0, "/peers").body;
  EXPECT_FALSE(peer_of(1, "node-c").is_object());
  EXPECT_EQ(redis_[0]->cli({"HEXISTS", "sumcache:members", "node-c"}), "0\n");
  EXPECT_EQ(redis_[0]->cli({"HEXISTS", "sumcache:seen", "node-c"}), "0\n");
  EXPECT_EQ(metric(0, "sumcache_redis_members"), 2);
  EXPECT_GE(metric(0, "sumcache_peers_left_total"), 1);
  // The others stay.
  EXPECT_TRUE(peer_of(0, "node-b").is_object());
}

// filter.kind fingerprint: a full is the set at a mark, so the publisher asks
// the round for one when Redis needs it (docs/peers.md, "Redis transport").
TEST_F(ClusterRedis, FingerprintSummariesTravelThroughRedisToo) {
  ASSERT_TRUE(start_redis_cluster(3, 0, 1, R"("filter": {"kind": "fingerprint"},)"));
  ASSERT_TRUE(wait_for_members());
  ASSERT_EQ(fetch(0, "/obj/redis-fp-1?max_age=600&size=3000").status, 200U);
  ASSERT_TRUE(wait_for_entries(1, "node-a", 1)) << admin(1, "/peers").body << log_of(1);
  EXPECT_EQ(peer_of(1, "node-a")["summary_kind"], "fingerprint");
  EXPECT_EQ(x_cache(fetch(1, "/obj/redis-fp-1?max_age=600&size=3000")), "PEER-HIT");
  ASSERT_EQ(fetch(0, "/obj/redis-fp-2?max_age=600&size=3000").status, 200U);
  ASSERT_TRUE(wait_for_entries(2, "node-a", 2)) << admin(2, "/peers").body;
  EXPECT_EQ(x_cache(fetch(2, "/obj/redis-fp-2?max_age=600&size=3000")), "PEER-HIT");
  EXPECT_EQ(origin_.log().count("/obj/redis-fp-2"), 1U);
  EXPECT_EQ(peer_of(2, "node-a")["messages_rejected"], 0) << admin(2, "/peers").body;
}

TEST_F(ClusterRedis, TwoServersWithNodeIdsHashedOverBothStillRoute) {
  // node-a and node-c hash to the second server, node-b to the first (FNV-1a 64 mod 2).
  ASSERT_EQ(shard("node-a", 2), 1U);
  ASSERT_EQ(shard("node-b", 2), 0U);
  ASSERT_EQ(shard("node-c", 2), 1U);
  ASSERT_TRUE(start_redis_cluster(3, 0, 2));
  ASSERT_TRUE(wait_for_members());
  ASSERT_EQ(fetch(0, "/obj/redis-shard-a?max_age=600&size=3000").status, 200U);
  ASSERT_EQ(fetch(1, "/obj/redis-shard-b?max_age=600&size=3000").status, 200U);
  ASSERT_TRUE(wait_for_entries(2, "node-a", 1)) << admin(2, "/peers").body;
  ASSERT_TRUE(wait_for_entries(2, "node-b", 1)) << admin(2, "/peers").body;
  EXPECT_EQ(x_cache(fetch(2, "/obj/redis-shard-a?max_age=600&size=3000")), "PEER-HIT");
  EXPECT_EQ(x_cache(fetch(2, "/obj/redis-shard-b?max_age=600&size=3000")), "PEER-HIT");
  EXPECT_EQ(x_cache(fetch(0, "/obj/redis-shard-b?max_age=600&size=3000")), "PEER-HIT");
  // Each node's keys on its server; the membership on the first.
  EXPECT_EQ(redis_[1]->cli({"EXISTS", "sumcache:node:node-a:full"}), "1\n");
  EXPECT_EQ(redis_[0]->cli({"EXISTS", "sumcache:node:node-a:full"}), "0\n");
  EXPECT_EQ(redis_[0]->cli({"EXISTS", "sumcache:node:node-b:full"}), "1\n");
  EXPECT_EQ(redis_[0]->cli({"HLEN", "sumcache:members"}), "3\n");
  EXPECT_EQ(redis_[1]->cli({"EXISTS", "sumcache:members"}), "0\n");
  const json peers = admin_json(2, "/peers");
  ASSERT_EQ(peers["redis"]["servers"].size(), 2U);
  EXPECT_EQ(peers["redis"]["servers"][1]["up"], true);
}

}  // namespace
}  // namespace sumcache::testing
