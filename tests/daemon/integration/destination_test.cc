// Where the forward proxy may connect (docs/proxy.md, "Destinations"): never to
// this node's own listeners, whatever name or address leads there, and never
// into access.deny_destinations; loopback origins keep working.
#include <chrono>

#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/ports.h"
#include "tests/support/raw_client.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

class DestinationTest : public ProxyTest {
 protected:
  // A forward proxy with its admin listener on the wildcard address (so that
  // every 127.x address reaches it; admin.allow keeps it to loopback clients),
  // a peer listener, and CONNECT allowed to the admin port and the origin.
  bool start_node(const std::string& deny_json = "") {
    admin_port_ = free_port();
    peer_port_ = free_port();
    const std::string access =
        deny_json.empty() ? "" : R"("access": {"deny_destinations": )" + deny_json + "},";
    return start_proxy({.extra_json = access + R"("forward": {"connect_ports": [)" +
                                      std::to_string(admin_port_) + ", " +
                                      std::to_string(origin_.port()) + R"(]},
           "cluster": {"sharing": "summary", "secret": "destination-test-secret",
                       "peer_listen": {"address": "127.0.0.1", "port": )" +
                                      std::to_string(peer_port_) + R"(}},
           "peers": [{"id": "absent", "host": "::1", "http_port": )" +
                                      std::to_string(free_port()) + R"(, "peer_port": )" +
                                      std::to_string(free_port()) + "}],",
                        .admin_json = R"({"address": "0.0.0.0", "port": )" +
                                      std::to_string(admin_port_) +
                                      R"(, "allow": ["127.0.0.0/8", "::1/128"]})"}) &&
           daemon_->wait_for_line("admin listening on", 10s, Output::err).has_value();
  }

  ClientResponse get(const std::string& url) {
    HttpClient client({.host = "127.0.0.1", .port = port_, .reuse_connection = false});
    auto response = client.send({.method = "GET", .target = url, .headers = {}, .body = ""});
    EXPECT_TRUE(response.ok()) << url << ": " << response.error().message();
    return response.ok() ? std::move(response).value() : ClientResponse{};
  }

  std::string metrics() {
    HttpClient client({.host = "127.0.0.1", .port = admin_port_, .reuse_connection = false});
    auto response = client.send({.method = "GET", .target = "/metrics", .headers = {}, .body = ""});
    EXPECT_TRUE(response.ok());
    return response.ok() ? response->body : "";
  }

  void expect_own_listener(const std::string& url) {
    const auto r = get(url);
    EXPECT_EQ(r.status, 403U) << url << "\n" << r.body;
    EXPECT_NE(r.body.find("destination is this proxy's own listener"), std::string::npos)
        << url << "\n"
        << r.body;
  }

  std::uint16_t admin_port_ = 0;
  std::uint16_t peer_port_ = 0;
};

TEST_F(DestinationTest, AdminEndpointIsRefusedThroughTheProxy) {
  ASSERT_TRUE(start_node());
  const std::string admin = std::to_string(admin_port_);
  expect_own_listener("http://127.0.0.1:" + admin + "/config");
  expect_own_listener("http://127.0.0.1:" + admin + "/stats");
  expect_own_listener("http://localhost:" + admin + "/config");  // a name that resolves here
  expect_own_listener("http://127.0.0.2:" + admin + "/config");  // another loopback address
  expect_own_listener("http://127.1.2.3:" + admin + "/config");
  expect_own_listener("http://0.0.0.0:" + admin + "/config");  // Linux connects it to loopback
  expect_own_listener("http://[::1]:" + admin + "/config");
  EXPECT_NE(
      metrics().find(R"(sumcache_upstream_refused_destinations_total{reason="own_listener"} 7)"),
      std::string::npos);
  EXPECT_TRUE(daemon_->wait_for_line(
      "refused upstream connect to http://127\\.0\\.0\\.1:" + admin + " .*own listener", 5s,
      Output::err))
      << daemon_log();
}

TEST_F(DestinationTest, PeerListenerAndTheProxyItselfAreRefused) {
  ASSERT_TRUE(start_node());
  expect_own_listener("http://127.0.0.1:" + std::to_string(peer_port_) + "/");
  expect_own_listener("http://127.0.0.1:" + std::to_string(port_) + "/obj/a");
  expect_own_listener("http://localhost:" + std::to_string(port_) + "/obj/a");
}

TEST_F(DestinationTest, ConnectToTheAdminPortIsRefused) {
  ASSERT_TRUE(start_node());
  const std::string authority = "127.0.0.1:" + std::to_string(admin_port_);
  auto reply = raw_exchange("127.0.0.1", port_,
                            "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority +
                                "\r\n\r\nGET /config HTTP/1.1\r\nHost: x\r\n\r\n",
                            5s);
  ASSERT_TRUE(reply.ok());
  const auto responses = parse_responses(reply->data);
  ASSERT_FALSE(responses.empty()) << reply->data;
  EXPECT_EQ(responses[0].status, 403U) << reply->data;
  EXPECT_EQ(reply->data.find("\"admin\""), std::string::npos) << "the config leaked:\n"
                                                              << reply->data;
}

TEST_F(DestinationTest, LoopbackOriginsStillWork) {
  ASSERT_TRUE(start_node());
  EXPECT_EQ(get(origin_url("/obj/a?size=10")).status, 200U);
  EXPECT_EQ(get("http://localhost:" + std::to_string(origin_.port()) + "/obj/b?size=10").status,
            200U);
  const std::string authority = "127.0.0.1:" + std::to_string(origin_.port());
  auto reply = raw_exchange("127.0.0.1", port_,
                            "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority +
                                "\r\n\r\nGET /obj/t?size=7 HTTP/1.1\r\nHost: x\r\nConnection: "
                                "close\r\n\r\n",
                            10s);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->data.rfind("HTTP/1.1 200", 0), 0U) << reply->data;
}

TEST_F(DestinationTest, LinkLocalIsRefusedByDefaultWithoutAConnectAttempt) {
  ASSERT_TRUE(start_node());
  const auto start = std::chrono::steady_clock::now();
  const auto r = get("http://169.254.169.254:8080/latest/meta-data/");
  // A connect attempt would wait out upstream_connect_timeout_ms (5 s) or fail with 502.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(r.status, 403U) << r.body;
  EXPECT_NE(r.body.find("access.deny_destinations"), std::string::npos) << r.body;
  EXPECT_NE(metrics().find(R"(sumcache_upstream_refused_destinations_total{reason="denied"} 1)"),
            std::string::npos);
}

TEST_F(DestinationTest, RefusalsCountOnlyAsRefusalsNotAsUpstreamErrors) {
  ASSERT_TRUE(start_node());
  // A GET (the cache's path) into the deny list, a POST (the forward path) to our own listener.
  EXPECT_EQ(get("http://169.254.169.254:8080/latest/meta-data/").status, 403U);
  HttpClient client({.host = "127.0.0.1", .port = port_, .reuse_connection = false});
  auto post = client.send({.method = "POST",
                           .target = "http://127.0.0.1:" + std::to_string(admin_port_) + "/purge",
                           .headers = {},
                           .body = "x"});
  ASSERT_TRUE(post.ok());
  EXPECT_EQ(post->status, 403U) << post->body;
  const std::string m = metrics();
  EXPECT_NE(m.find(R"(sumcache_upstream_refused_destinations_total{reason="denied"} 1)"),
            std::string::npos);
  EXPECT_NE(m.find(R"(sumcache_upstream_refused_destinations_total{reason="own_listener"} 1)"),
            std::string::npos);
  EXPECT_NE(m.find("\nsumcache_upstream_errors_total 0\n"), std::string::npos) << m;
}

TEST_F(DestinationTest, ConfiguredDenyListRefusesALoopbackOrigin) {
  ASSERT_TRUE(start_node(R"(["127.0.0.0/8"])"));
  const auto r = get(origin_url("/obj/a?size=10"));
  EXPECT_EQ(r.status, 403U) << r.body;
  EXPECT_NE(r.body.find("access.deny_destinations"), std::string::npos) << r.body;
  EXPECT_EQ(origin_.log().total(), 0U);
  // Own listeners keep their own reason.
  expect_own_listener("http://127.0.0.1:" + std::to_string(admin_port_) + "/config");
}

}  // namespace
}  // namespace sumcache::testing
