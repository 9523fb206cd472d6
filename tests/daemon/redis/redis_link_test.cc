// RedisLink against a real redis-server that goes away and comes back on its
// port: calls fail at once while it is down, the link reconnects with backoff,
// calls on_connect again, logs the outage once per interval, and counts.

#include "daemon/redis/redis_link.h"

#include <fstream>
#include <sstream>

#include "tests/daemon/redis/redis_test_support.h"
#include "tests/support/ports.h"
#include "tests/support/redis_process.h"
#include "tests/support/temp_dir.h"

namespace sumcache::daemon {
namespace {

using namespace redis_test;
using testing::RedisProcess;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class RedisLinkTest : public ::testing::Test {
 protected:
  RedisOptions options_for(std::uint16_t port) {
    RedisOptions o;
    o.endpoint = {"127.0.0.1", port};
    o.connect_timeout = 1s;
    o.command_timeout = 2s;
    return o;
  }
  std::tuple<error_code, RedisReply> command(RedisLink& link, RedisCommand args) {
    return run(io_, link.command(std::move(args)))
        .value_or(std::tuple{asio::error::would_block, RedisReply{}});
  }
  std::string log_text() { return read_file(log_path_); }

  asio::io_context io_;
  testing::TempDir dir_;
  std::filesystem::path log_path_ = dir_.path() / "error.log";
  Logger log_{LogLevel::info, log_path_.string()};
};

TEST_F(RedisLinkTest, ReconnectsAfterRedisRestartsAndCallsFailAtOnceMeanwhile) {
  ASSERT_TRUE(RedisProcess::installed()) << "redis-server is not installed: run scripts/setup";
  RedisProcess redis;
  ASSERT_TRUE(redis.start().empty());
  RedisLink link(io_.get_executor(), options_for(redis.port()), log_, "redis test");
  int connected = 0;
  link.on_connect([&] { ++connected; });
  link.start();
  ASSERT_TRUE(run_until(
      io_, [&] { return link.up(); }, 10s));
  EXPECT_EQ(connected, 1);
  auto [ec, pong] = command(link, {"PING"});
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(pong.str, "PONG");

  redis.stop();
  ASSERT_TRUE(run_until(
      io_, [&] { return !link.up(); }, 10s))
      << "the link saw the server go";
  // Let it try and fail a few times (100, 200, 400 ms apart).
  ASSERT_TRUE(run_until(
      io_, [&] { return link.stats().connect_failures >= 3; }, 10s));
  const auto start = std::chrono::steady_clock::now();
  auto [down_ec, none] = command(link, {"PING"});
  EXPECT_EQ(down_ec, RedisErrc::not_connected);
  // At once: well under the connect (1 s) and command (2 s) timeouts a wait would cost.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms)
      << "no waiting on a Redis that is away";

  ASSERT_TRUE(redis.restart().empty()) << redis.log();
  ASSERT_TRUE(run_until(
      io_, [&] { return link.up(); }, 10s))
      << "reconnected within backoff";
  EXPECT_EQ(connected, 2);
  auto [ec2, pong2] = command(link, {"PING"});
  EXPECT_FALSE(ec2) << ec2.message();
  EXPECT_EQ(pong2.str, "PONG");

  const RedisLinkStats s = link.stats();
  EXPECT_TRUE(s.up);
  EXPECT_EQ(s.connects, 2u);
  EXPECT_EQ(s.disconnects, 1u);
  EXPECT_GE(s.connect_failures, 3u);
  EXPECT_EQ(s.command_failures, 1u);
  EXPECT_EQ(s.traffic.commands, 4u);  // two connects' PINGs and ours; the refused one was not sent
  EXPECT_EQ(s.traffic.bytes_sent, 4u * 14);
  EXPECT_EQ(s.traffic.bytes_received, 4u * 7);

  // One line for the whole outage (the limiter holds the failed attempts back).
  const std::string text = log_text();
  EXPECT_EQ(count(text, "redis test: connection lost"), 1u) << text;
  EXPECT_EQ(count(text, "redis test: cannot connect"), 0u) << text;
  EXPECT_EQ(count(text, "redis test: connected again after"), 1u) << text;
  link.stop();
  ASSERT_TRUE(run_until(
      io_, [&] { return !link.up(); }, 5s));
}

TEST_F(RedisLinkTest, ANeverReachableRedisFailsCallsAtOnceAndLogsOnce) {
  const auto port = testing::free_port();
  RedisLink link(io_.get_executor(), options_for(port), log_, "redis nowhere");
  link.start();
  ASSERT_TRUE(run_until(
      io_, [&] { return link.stats().connect_failures >= 4; }, 10s));
  auto [ec, none] = command(link, {"PING"});
  EXPECT_EQ(ec, RedisErrc::not_connected);
  EXPECT_FALSE(link.up());
  const std::string text = log_text();
  EXPECT_EQ(count(text, "redis nowhere: cannot connect"), 1u) << text;
  EXPECT_EQ(link.stats().connects, 0u);
  link.stop();
  // The loop ends: nothing is left to run once its backoff timer is cancelled.
  io_.restart();
  const auto start = std::chrono::steady_clock::now();
  io_.run_for(5s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
}

}  // namespace
}  // namespace sumcache::daemon
