// Pooled upstream connections against a scripted origin on loopback: one that
// closes idle keep-alive connections, one whose close crosses the proxy's
// request, and one that sends bytes nobody asked for. Requests that cannot be
// repeated must not fail for the pool's sake, and stray bytes must never
// become another URL's answer, nor be cached under it.
#include <thread>

#include "tests/daemon/admin/metric_samples.h"
#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/daemon/integration/keepalive_fault_origin.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

// Run in both modes: the conformance suite of issue 14 met the stale pooled
// connection through a reverse proxy, issue 11 through a forward one.
class UpstreamPool : public ProxyTest, public ::testing::WithParamInterface<std::string> {
 protected:
  bool start(KeepAliveFaultOriginOptions origin_options, const std::string& extra_json = "") {
    scripted_ = std::make_unique<KeepAliveFaultOrigin>(origin_options);
    if (!scripted_->start()) {
      ADD_FAILURE() << "scripted origin did not start";
      return false;
    }
    ProxyOptions options;
    options.mode = GetParam();
    if (options.mode == "reverse") options.origin_url = scripted_->url("");
    options.admin_json = R"({"address": "127.0.0.1", "port": 0})";
    options.extra_json = extra_json;
    if (!start_proxy(options)) return false;
    auto match =
        daemon_->wait_for_line("admin listening on 127\\.0\\.0\\.1:([0-9]+)", 10s, Output::err);
    if (!match) {
      ADD_FAILURE() << "no admin listener:\n" << daemon_log();
      return false;
    }
    admin_port_ = static_cast<std::uint16_t>(std::stoi((*match)[1]));
    return true;
  }

  // One request on `client` (the same client connection: the same worker and pool).
  ClientResponse send(HttpClient& client, const std::string& method, const std::string& path,
                      const std::string& body = "") {
    const std::string target = GetParam() == "reverse" ? path : scripted_->url(path);
    auto r = client.send({.method = method, .target = target, .body = body});
    EXPECT_TRUE(r.ok()) << method << " " << path << ": " << r.error().message();
    return r.ok() ? std::move(r).value() : ClientResponse{};
  }

  HttpClient client() { return HttpClient({.host = "127.0.0.1", .port = port_}); }

  // A counter of /metrics, waited for until it reaches `at_least` (bounded).
  std::uint64_t metric(const std::string& name, std::uint64_t at_least = 0) {
    std::uint64_t value = 0;
    for (int i = 0; i < 100; ++i) {
      auto r = http_get(admin_port_, "/metrics");
      if (r.ok()) {
        const auto samples = metric_samples(r.value().body);
        const auto found = samples.find(name);
        value = found == samples.end() ? 0 : std::stoull(found->second);
        if (value >= at_least) return value;
      }
      std::this_thread::sleep_for(20ms);
    }
    return value;
  }

  static std::string real(const std::string& method, const std::string& path,
                          std::size_t body_bytes = 0) {
    return "real:" + method + " " + path + " " + std::to_string(body_bytes);
  }

  std::unique_ptr<KeepAliveFaultOrigin> scripted_;
};
INSTANTIATE_TEST_SUITE_P(Modes, UpstreamPool, kBothModes, mode_name);

// Issue 11 (2a): an origin that closes idle connections after 100 ms. Every
// POST and PUT, sent 250 ms apart, reaches it on a live connection.
TEST_P(UpstreamPool, PostsAndPutsAfterTheOriginClosedIdleConnectionsAllSucceed) {
  ASSERT_TRUE(start({.idle_close = 100ms}));
  const std::string body(1000, 'b');
  int ok = 0;
  for (int i = 0; i < 10; ++i) {
    for (const std::string method : {"POST", "PUT"}) {
      const std::string path = "/" + method + "/" + std::to_string(i);
      auto c = client();
      const auto r = send(c, method, path, body);
      EXPECT_EQ(r.status, 200u) << method << " " << path << ": " << r.body;
      EXPECT_EQ(r.body, real(method, path, body.size()));
      ok += r.status == 200 ? 1 : 0;
      std::this_thread::sleep_for(250ms);
    }
  }
  EXPECT_EQ(ok, 20);
  // The pools saw the origin's closes while the connections were idle.
  EXPECT_GE(metric("sumcache_upstream_idle_closed_total", 1), 1u);
}

// A close that crosses the request (the origin reads it and closes without an
// answer): a PUT, whose body the proxy still holds, is sent again on a new
// connection with its whole body; a POST is not (RFC 9112 §9.3.1).
TEST_P(UpstreamPool, ReusedConnectionFailureRetriesAPutButNotAPost) {
  ASSERT_TRUE(start({.drop_after_first = true}));
  auto c = client();
  EXPECT_EQ(send(c, "GET", "/warm").status, 200u);
  const std::string body(3000, 'p');
  const auto put = send(c, "PUT", "/put", body);
  EXPECT_EQ(put.status, 200u) << put.body;
  EXPECT_EQ(put.body, real("PUT", "/put", body.size()));
  EXPECT_EQ(metric("sumcache_upstream_fresh_retries_total", 1), 1u);

  const auto post = send(c, "POST", "/post", "form=1");
  EXPECT_EQ(post.status, 502u) << "a POST must not be sent twice";
  std::size_t posts = 0;
  for (const auto& r : scripted_->seen()) posts += r.method == "POST" ? 1 : 0;
  EXPECT_EQ(posts, 1u);
  EXPECT_EQ(metric("sumcache_upstream_fresh_retries_total"), 1u);
}

// limits.upstream_unsafe_reuse_ms = 0: a POST never takes a pooled connection.
TEST_P(UpstreamPool, UnsafeReuseZeroGivesEveryPostANewConnection) {
  ASSERT_TRUE(start({.drop_after_first = true}, R"("limits": {"upstream_unsafe_reuse_ms": 0},)"));
  auto c = client();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(send(c, "GET", "/warm/" + std::to_string(i)).status, 200u);
    const auto post = send(c, "POST", "/post", "form=1");
    EXPECT_EQ(post.status, 200u) << post.body;
  }
}

// Issue 11 (2b): a complete response the origin sends on an idle connection is
// not the answer to the next request for another URL, nor cached under it.
TEST_P(UpstreamPool, StrayResponseOnAnIdleConnectionIsNeverServedNorCached) {
  ASSERT_TRUE(start({}));
  auto c = client();
  EXPECT_EQ(send(c, "GET", "/stray/a").body, real("GET", "/stray/a"));
  ASSERT_TRUE(scripted_->wait_until([](const auto&, int stray) { return stray >= 1; }, 5s));
  const auto first = send(c, "GET", "/victim");
  EXPECT_EQ(first.body, real("GET", "/victim"));
  const auto again = send(c, "GET", "/victim");
  EXPECT_EQ(again.body, real("GET", "/victim"));
  EXPECT_EQ(again.header("X-Cache").value_or(""), "HIT");
  EXPECT_GE(metric("sumcache_upstream_stray_discarded_total", 1), 1u);
  // The warning names the origin.
  EXPECT_TRUE(daemon_->wait_for_line(
      "upstream http://127\\.0\\.0\\.1:" + std::to_string(scripted_->port()) +
          " sent bytes nobody asked for",
      5s, Output::err))
      << daemon_log();
}

// Bytes read past the end of a response: the connection is closed, not pooled,
// whether they follow a body or a 204 (which has none).
TEST_P(UpstreamPool, BytesAfterAResponseCloseTheConnection) {
  ASSERT_TRUE(start({}));
  auto c = client();
  for (const std::string first : {"/extra/a", "/extra204/a"}) {
    const auto r = send(c, "GET", first);
    EXPECT_NE(r.body, kPoison);
    const std::string next = "/after" + first;
    EXPECT_EQ(send(c, "GET", next).body, real("GET", next));
    const auto seen = scripted_->seen();
    auto connection_of = [&](const std::string& path) {
      for (const auto& s : seen) {
        if (s.path == path) return s.connection;
      }
      return 0;
    };
    EXPECT_NE(connection_of(first), connection_of(next)) << first << " then " << next;
  }
  EXPECT_GE(metric("sumcache_upstream_stray_discarded_total", 2), 2u);
}

}  // namespace
}  // namespace sumcache::testing
