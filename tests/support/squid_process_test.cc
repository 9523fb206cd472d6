// SquidProcess: the real Squid the interop tests stand on starts from its
// generated config, caches through to the test origin, and stops by its PID.

#include "tests/support/squid_process.h"

#include <gtest/gtest.h>

#include "tests/support/http_client.h"
#include "tests/support/ports.h"
#include "tests/support/test_origin.h"

namespace sumcache::testing {
namespace {

TEST(SquidProcess, CachesThroughToTheOriginAndStops) {
  if (!SquidProcess::installed()) GTEST_FAIL() << "squid is not installed: run scripts/setup";
  TestOrigin origin;
  ASSERT_FALSE(origin.start());
  SquidProcess squid;
  SquidOptions options;
  options.http_port = free_port();
  const std::string why = squid.start(options);
  ASSERT_TRUE(why.empty()) << why;

  HttpClient client(ClientOptions{.port = squid.http_port()});
  const std::string url =
      "http://127.0.0.1:" + std::to_string(origin.port()) + "/obj/squid-fixture?max_age=600";
  for (int i = 0; i < 2; ++i) {
    auto r = client.send({.target = url});
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r.value().status, 200);
  }
  squid.stop();
  const std::string log = squid.access_log();
  EXPECT_NE(log.find("TCP_MISS/200"), std::string::npos) << log;
  EXPECT_NE(log.find("HIT/200"), std::string::npos) << log;
  EXPECT_EQ(origin.log().count("/obj/squid-fixture"), 1u);
}

}  // namespace
}  // namespace sumcache::testing
