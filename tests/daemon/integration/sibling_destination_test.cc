// A forward proxy's clients cannot reach its siblings' private listeners
// (issue 27 item 5, docs/proxy.md "Destinations"): node-b trusts node-a's
// address on its peer listener, so a request relayed by node-a to node-b's
// admin, peer, object or ICP port would speak to node-b as node-a. Those ports
// are refused like node-a's own; node-b's proxy port stays reachable.
#include <chrono>
#include <thread>

#include "tests/daemon/integration/cluster_fixture.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

class SiblingDestination : public ClusterTest {
 protected:
  ClientResponse through_a(const std::string& url, const std::string& method = "GET",
                           const std::string& body = "") {
    HttpClient client({.host = "127.0.0.1",
                       .port = nodes_[0].http_port,
                       .timeout = std::chrono::seconds(10),
                       .reuse_connection = false});
    auto r = client.send({.method = method, .target = url, .headers = {}, .body = body});
    EXPECT_TRUE(r.ok()) << url << ": " << r.error().message();
    return r.ok() ? std::move(r).value() : ClientResponse{};
  }

  static std::string at(std::uint16_t port, const std::string& path) {
    return "http://127.0.0.1:" + std::to_string(port) + path;
  }

  void expect_peer_listener(const ClientResponse& r, const std::string& what) {
    EXPECT_EQ(r.status, 403U) << what << "\n" << r.body;
    EXPECT_NE(r.body.find("destination is a peer's private listener"), std::string::npos)
        << what << "\n"
        << r.body;
  }
};

TEST_F(SiblingDestination, PeersPrivatePortsAreRefusedAndItsProxyPortIsNot) {
  ASSERT_TRUE(start_cluster({.nodes = 2}));
  const ClusterNode& b = nodes_[1];
  expect_peer_listener(through_a(at(b.admin_port, "/config")), "b's admin /config");
  expect_peer_listener(through_a(at(b.admin_port, "/stats")), "b's admin /stats");
  expect_peer_listener(through_a(at(b.peer_port, "/summary"), "POST", "x"), "b's peer listener");
  expect_peer_listener(through_a(at(b.object_port, "/")), "b's object port");
  expect_peer_listener(through_a(at(b.icp_port, "/")), "b's ICP port");
  expect_peer_listener(through_a("http://localhost:" + std::to_string(b.admin_port) + "/config"),
                       "b's admin by name");
  // The proxy port is public: node-b answers (here with its own 400, as the
  // relayed target is origin-form, which a forward proxy does not take).
  const auto proxy = through_a(at(b.http_port, "/obj/through-b?size=5"));
  EXPECT_NE(proxy.status, 403U) << proxy.body;
  EXPECT_TRUE(wait_for_access(1, "/obj/through-b")) << access_log_of(1);
  // Counted and logged as node-a's other destination refusals are.
  EXPECT_NE(
      admin(0, "/metrics")
          .body.find(R"(sumcache_upstream_refused_destinations_total{reason="peer_listener"} 6)"),
      std::string::npos)
      << admin(0, "/metrics").body;
  EXPECT_NE(log_of(0).find("refused upstream connect to http://127.0.0.1:" +
                           std::to_string(b.admin_port) + " "),
            std::string::npos)
      << log_of(0);
  // Peer fetches between the two still work.
  EXPECT_EQ(fetch(1, "/obj/shared?size=10&max_age=600").status, 200U);
  EXPECT_EQ(fetch(0, "/obj/plain?size=10&max_age=600").status, 200U);
}

// A peer added at runtime (the admin's POST /peers) is guarded from then on.
TEST_F(SiblingDestination, APeerAddedAtRuntimeIsGuardedToo) {
  ASSERT_TRUE(start_cluster({.nodes = 3, .late_nodes = 1}));
  const ClusterNode& c = nodes_[2];
  const std::string entry =
      R"({"id": "node-c", "host": "127.0.0.1", "http_port": )" + std::to_string(c.http_port) +
      R"(, "peer_port": )" + std::to_string(c.peer_port) + R"(, "icp_port": )" +
      std::to_string(c.icp_port) + R"(, "object_port": )" + std::to_string(c.object_port) +
      R"(, "admin_port": )" + std::to_string(c.admin_port) + "}";
  // Nothing listens there yet: not refused, the connect fails (502).
  EXPECT_EQ(through_a(at(c.admin_port, "/config")).status, 502U);
  ASSERT_EQ(admin(0, "/peers", "POST", entry, true).status, 201U);
  unsigned status = 0;
  for (int i = 0; i < 100 && status != 403; ++i) {
    if (i > 0) std::this_thread::sleep_for(50ms);
    status = through_a(at(c.admin_port, "/config")).status;
  }
  EXPECT_EQ(status, 403U);
  expect_peer_listener(through_a(at(c.peer_port, "/")), "c's peer listener");
}

}  // namespace
}  // namespace sumcache::testing
