// An upstream failure answered with 502 or 504 is in the error log with the
// upstream, the cause and the URL, once a second at most per status, with the
// number held back (docs/operations.md, "Logs").
#include <chrono>
#include <thread>

#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/ports.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

std::size_t count(const std::string& log, const std::string& text) {
  std::size_t n = 0;
  for (auto at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++n;
  return n;
}

class UpstreamErrorLogTest : public ProxyTest {
 protected:
  ClientResponse get(const std::string& url) {
    HttpClient client({.host = "127.0.0.1", .port = port_, .reuse_connection = false});
    auto response = client.send({.method = "GET", .target = url, .headers = {}, .body = ""});
    EXPECT_TRUE(response.ok()) << url << ": " << response.error().message();
    return response.ok() ? std::move(response).value() : ClientResponse{};
  }
};

TEST_F(UpstreamErrorLogTest, BadGatewayIsLoggedWithUpstreamCauseAndUrlOncePerInterval) {
  ASSERT_TRUE(start_proxy());
  const std::string upstream = "http://127.0.0.1:" + std::to_string(free_port());  // nobody there
  const auto first = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(get(upstream + "/gone/" + std::to_string(i)).status, 502U);
  }
  ASSERT_LT(std::chrono::steady_clock::now() - first, 900ms) << "too slow to test the interval";
  const std::string line =
      "502 for " + upstream + "/gone/0: upstream " + upstream + ": Connection refused";
  ASSERT_TRUE(daemon_->wait_for_line(line, 5s, Output::err)) << daemon_log();
  EXPECT_EQ(count(daemon_log(), "502 for "), 1U) << daemon_log();
  std::this_thread::sleep_for(1100ms);  // past the interval: the next failure is logged
  EXPECT_EQ(get(upstream + "/gone/5").status, 502U);
  EXPECT_TRUE(daemon_->wait_for_line(
      "502 for " + upstream + "/gone/5: .*\\(4 more 502s since the last line\\)", 5s, Output::err))
      << daemon_log();
}

TEST_F(UpstreamErrorLogTest, GatewayTimeoutIsLoggedWithTheUrl) {
  ASSERT_TRUE(start_proxy({.extra_json = R"("limits": {"upstream_first_byte_timeout_ms": 200},)"}));
  EXPECT_EQ(fetch("/obj/slow?delay_ms=3000").status, 504U);
  EXPECT_TRUE(daemon_->wait_for_line(
      "504 for " + origin_url("/obj/slow\\?delay_ms=3000") +
          ": upstream http://127\\.0\\.0\\.1:" + std::to_string(origin_.port()) + ": ",
      5s, Output::err))
      << daemon_log();
}

}  // namespace
}  // namespace sumcache::testing
