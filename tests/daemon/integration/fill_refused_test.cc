// A response fetched to fill the cache that the store refuses (store_on_fill.h):
// counted in sumcache_cache_fills_not_stored_total and logged once a second at
// most, in the foreground fill and in a stale-while-revalidate refetch alike;
// what was stored before stays served.
#include <chrono>
#include <thread>

#include "tests/daemon/admin/metric_samples.h"
#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/daemon/integration/scripted_origin.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

// The fixture's cache.max_object_bytes is 8 MiB: a body just under it passes
// the HTTP side's check (its Content-Length), and the store refuses it once
// the key, meta and head are counted with it.
constexpr std::size_t kNearLimit = 8 * 1024 * 1024 - 64;

class FillRefused : public ProxyTest {
 protected:
  void start_with_admin() {
    ProxyOptions options;
    options.admin_json = R"({"address": "127.0.0.1", "port": 0})";
    ASSERT_TRUE(start_proxy(options));
    auto port =
        daemon_->wait_for_line("admin listening on 127\\.0\\.0\\.1:([0-9]+)", 10s, Output::err);
    ASSERT_TRUE(port) << daemon_log();
    admin_port_ = static_cast<std::uint16_t>(std::stoi((*port)[1]));
  }

  std::string fills_not_stored() {
    HttpClient admin({.host = "127.0.0.1", .port = admin_port_, .reuse_connection = false});
    auto metrics = admin.send({.target = "/metrics"});
    if (!metrics.ok()) return "no answer: " + metrics.error().message();
    const auto m = metric_samples(metrics->body);
    const auto it = m.find("sumcache_cache_fills_not_stored_total");
    return it == m.end() ? "absent" : it->second;
  }

  // Polls /metrics until the counter reads `want`, for at most 10 s.
  std::string wait_for_fills_not_stored(const std::string& want) {
    std::string got;
    for (int i = 0; i < 200; ++i) {
      got = fills_not_stored();
      if (got == want) break;
      std::this_thread::sleep_for(50ms);
    }
    return got;
  }

  std::uint16_t admin_port_ = 0;
};

TEST_F(FillRefused, AForegroundFillTheStoreRefusesIsCountedAndLogged) {
  start_with_admin();
  const std::string path = "/obj/near-limit?max_age=60&size=" + std::to_string(kNearLimit);
  for (int i = 0; i < 2; ++i) {
    const auto response = fetch(path);
    EXPECT_EQ(response.status, 200U);
    EXPECT_EQ(response.body.size(), kNearLimit);  // the client got it whole all the same
  }
  EXPECT_EQ(origin_.log().count("/obj/near-limit"), 2U);  // not stored: fetched again
  EXPECT_EQ(wait_for_fills_not_stored("2"), "2");
  EXPECT_NE(
      daemon_log().find("not stored " + origin_url(path) + ": object exceeds max_object_bytes"),
      std::string::npos)
      << daemon_log();
}

TEST_F(FillRefused, ABackgroundRevalidationTheStoreRefusesIsCountedAndLoggedAndTheOldCopyStays) {
  // Stale at once (max-age=0) and within stale-while-revalidate: the second
  // request is answered from the store and refetched in the background.
  const std::string cc = "Cache-Control: max-age=0, stale-while-revalidate=600";
  ScriptedOrigin scripted(
      {Send{response_head({cc, "Content-Length: 5", "Connection: close"}) + "small"}});
  start_with_admin();
  const std::string url = scripted.url() + "/changing";
  HttpClient client({.host = "127.0.0.1", .port = port_, .reuse_connection = false});
  auto first = client.send({.target = url});
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_EQ(first->body, "small");

  scripted.set_script({Send{
      response_head({cc, "Content-Length: " + std::to_string(kNearLimit), "Connection: close"}) +
      std::string(kNearLimit, 'b')}});
  auto second = client.send({.target = url});
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_EQ(second->body, "small");  // the stale copy, at once
  EXPECT_EQ(wait_for_fills_not_stored("1"), "1");
  EXPECT_EQ(scripted.requests(), 2);
  EXPECT_NE(daemon_log().find("not stored " + url + ": object exceeds max_object_bytes"),
            std::string::npos)
      << daemon_log();

  // The refused refetch left the stored copy as it was.
  auto third = client.send({.target = url});
  ASSERT_TRUE(third.ok()) << third.error().message();
  EXPECT_EQ(third->body, "small");
}

}  // namespace
}  // namespace sumcache::testing
