// With cluster.tls, object requests between peers travel over TLS to each
// node's object listener (docs/peers.md, "TLS for object requests"): two real
// nodes serve each other PEER-HITs through it, and the listener refuses plain
// text, a TLS client that is not a verified peer (403), and a source address
// that is not a peer's, counting each refusal in /metrics.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "tests/daemon/integration/cluster_fixture.h"

namespace sumcache::testing {
namespace {

constexpr const char* kObject = "/obj/private?max_age=600&size=5000";

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

// The value of a counter sample in a /metrics text, or -1 when it is missing.
long long sample(const std::string& metrics, const std::string& name) {
  const auto at = metrics.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::stoll(metrics.substr(at + name.size() + 2));
}

class PeerObjectTls : public ClusterTest {};

TEST_F(PeerObjectTls, PeerHitsTravelOverTheTlsObjectListener) {
  ASSERT_TRUE(start_cluster({.nodes = 2, .tls = true}));
  const auto first = fetch(0, kObject);
  ASSERT_EQ(first.status, 200U);
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  const auto at_b = fetch(1, kObject);
  EXPECT_EQ(x_cache(at_b), "PEER-HIT");
  EXPECT_EQ(at_b.body, first.body);
  EXPECT_EQ(origin_.log().count("/obj/private"), 1U);
  // node-b reached node-a over TLS: node-a's object listener took the connection.
  const std::string metrics = admin(0, "/metrics").body;
  EXPECT_GE(sample(metrics, "sumcache_peer_object_connections_total"), 1) << metrics;
  EXPECT_TRUE(has_line(metrics, R"(sumcache_peer_object_refused_total{reason="not_peer"} 0)"))
      << metrics;
  EXPECT_NE(log_of(0).find("peer objects listening on 127.0.0.1:"), std::string::npos);
}

TEST_F(PeerObjectTls, TheObjectListenerServesVerifiedPeersOnly) {
  ASSERT_TRUE(start_cluster({.nodes = 2, .tls = true}));
  ASSERT_EQ(fetch(0, kObject).status, 200U);
  // A TLS client with the cluster's CA but no peer credentials: 403, never the object.
  HttpClient stranger({.host = "127.0.0.1",
                       .port = nodes_[0].object_port,
                       .timeout = std::chrono::seconds(5),
                       .reuse_connection = false,
                       .tls_ca = tls_ca_,
                       .tls_host = "127.0.0.1"});
  auto refused = stranger.send({.method = "GET",
                                .target = origin_url(kObject),
                                .headers = {{"Cache-Control", "only-if-cached"}},
                                .body = {}});
  ASSERT_TRUE(refused.ok()) << refused.error().message();
  EXPECT_EQ(refused->status, 403U);
  EXPECT_EQ(refused->body.find("\"size\""), std::string::npos);
  // Plain text on the TLS port gets no HTTP answer.
  HttpClient plain({.host = "127.0.0.1",
                    .port = nodes_[0].object_port,
                    .timeout = std::chrono::seconds(3),
                    .reuse_connection = false});
  EXPECT_FALSE(plain.send({.method = "GET", .target = origin_url(kObject)}).ok());
  const std::string metrics = admin(0, "/metrics").body;
  EXPECT_TRUE(has_line(metrics, R"(sumcache_peer_object_refused_total{reason="not_peer"} 1)"))
      << metrics;
  EXPECT_TRUE(has_line(metrics, R"(sumcache_peer_object_refused_total{reason="handshake"} 1)"))
      << metrics;
  EXPECT_NE(log_of(0).find("peer object listener refused 127.0.0.1"), std::string::npos)
      << log_of(0);
}

TEST_F(PeerObjectTls, ASourceThatIsNotAPeerIsClosedAtOnce) {
  ASSERT_TRUE(start_cluster({.nodes = 2, .tls = true}));
  // From 127.0.0.2, which is not a peer's address: closed before any handshake byte.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, "127.0.0.2", &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(nodes_[0].object_port);
  ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from), 0);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
  pollfd p{fd, POLLIN, 0};
  char byte = 0;
  const bool readable = ::poll(&p, 1, 5000) == 1;
  const auto n = readable ? ::recv(fd, &byte, 1, 0) : -1;
  ::close(fd);
  EXPECT_TRUE(readable) << "the listener kept a stranger's connection open";
  EXPECT_LE(n, 0) << "the listener sent bytes to a stranger";
  const std::string metrics = admin(0, "/metrics").body;
  EXPECT_TRUE(has_line(metrics, R"(sumcache_peer_object_refused_total{reason="address"} 1)"))
      << metrics;
}

}  // namespace
}  // namespace sumcache::testing
