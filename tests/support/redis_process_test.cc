// RedisProcess: the real redis-server the Redis tests stand on starts on its
// port without persistence, answers redis-cli, restarts on the same port, and
// stops by its PID.

#include "tests/support/redis_process.h"

#include <gtest/gtest.h>

#include "tests/support/ports.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_pki.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

TEST(RedisProcess, AnswersRedisCliRestartsOnItsPortAndStops) {
  if (!RedisProcess::installed())
    GTEST_FAIL() << "redis-server is not installed: run scripts/setup";
  RedisProcess redis;
  const std::string why = redis.start();
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(redis.cli({"SET", "k", "v"}), "OK\n");
  EXPECT_EQ(redis.cli({"GET", "k"}), "v\n");
  EXPECT_EQ(redis.cli({"CONFIG", "GET", "appendonly"}), "appendonly\nno\n");

  const auto port = redis.port();
  ASSERT_TRUE(redis.restart().empty()) << redis.log();
  EXPECT_EQ(redis.port(), port);
  EXPECT_TRUE(port_accepts("127.0.0.1", port, 2s));
  EXPECT_EQ(redis.cli({"EXISTS", "k"}), "0\n") << "no persistence: a restart starts empty";

  redis.stop();
  EXPECT_FALSE(redis.running());
  EXPECT_FALSE(port_accepts("127.0.0.1", port, 200ms));
}

TEST(RedisProcess, RequirepassAndAclUserAreAskedOfClients) {
  if (!RedisProcess::installed())
    GTEST_FAIL() << "redis-server is not installed: run scripts/setup";
  RedisProcess redis;
  ASSERT_TRUE(
      redis.start({.requirepass = "pw", .acl_user = "alice", .acl_password = "secret"}).empty());
  EXPECT_EQ(redis.cli({"ACL", "WHOAMI"}), "alice\n");  // cli() authenticates as the ACL user
  EXPECT_EQ(redis.cli({"--user", "alice", "--pass", "wrong", "PING"}).find("PONG"),
            std::string::npos);
}

TEST(RedisProcess, ServesTlsOnlyWithTheGivenCertificate) {
  if (!RedisProcess::installed())
    GTEST_FAIL() << "redis-server is not installed: run scripts/setup";
  TempDir dir;
  const TestPki pki = make_test_pki(dir.path());
  RedisProcess redis;
  const std::string why =
      redis.start({.tls_cert = pki.server_cert, .tls_key = pki.server_key, .tls_ca = pki.ca_cert});
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(redis.cli({"PING"}), "PONG\n");  // cli() speaks TLS, verifying with tls_ca
}

}  // namespace
}  // namespace sumcache::testing
