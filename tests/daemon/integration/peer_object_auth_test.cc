// Object requests between peers authenticate with Sumcache-Peer-Auth
// (docs/protocol.md, "Peer object requests"): two real nodes with a cluster
// secret still serve each other PEER-HITs, while a stranger who sends the peer
// marker to a proxy port, with no header or a forged, replayed, expired or
// wrong-node one, gets 403 and never the stored object. A verified peer needs
// no place in access.allow_clients; nobody else passes without one.

#include <chrono>
#include <string>

#include "protocol/peer_auth.h"
#include "tests/daemon/integration/cluster_fixture.h"

namespace sumcache::testing {
namespace {

constexpr const char* kObject = "/obj/guarded?max_age=600&size=5000";

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class PeerObjectAuth : public ClusterTest {
 protected:
  // A request to node's proxy port as a peer would send it: absolute-form,
  // only-if-cached, the marker naming `marker`, and `auth` when not empty.
  ClientResponse ask_as_peer(std::size_t node, const std::string& url, const std::string& marker,
                             const std::string& auth, const std::string& host = "127.0.0.1") {
    HeaderList headers{{"Cache-Control", "only-if-cached"}, {"X-Sumcache-Peer", marker}};
    if (!auth.empty()) headers.push_back({std::string(protocol::kPeerAuthHeader), auth});
    HttpClient client({.host = host,
                       .port = nodes_[node].http_port,
                       .timeout = std::chrono::seconds(10),
                       .reuse_connection = false});
    auto response = client.send({.method = "GET", .target = url, .headers = headers, .body = {}});
    EXPECT_TRUE(response.ok()) << response.error().message();
    return response.ok() ? std::move(response).value() : ClientResponse{};
  }

  std::string sign(const std::string& url, const std::string& node, std::int64_t t) const {
    return protocol::sign_peer_request("GET", url, node, t, options_.secret);
  }
};

TEST_F(PeerObjectAuth, PeersStillServeEachOtherWithTheHeader) {
  ASSERT_TRUE(start_cluster({.nodes = 2}));
  const auto first = fetch(0, kObject);
  ASSERT_EQ(first.status, 200U);
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  const auto at_b = fetch(1, kObject);
  EXPECT_EQ(x_cache(at_b), "PEER-HIT");
  EXPECT_EQ(at_b.body, first.body);
  EXPECT_EQ(origin_.log().count("/obj/guarded"), 1U);
  const std::string metrics = admin(0, "/metrics").body;
  EXPECT_TRUE(has_line(metrics, R"(sumcache_peer_auth_refused_total{reason="bad_mac"} 0)"))
      << metrics;
}

TEST_F(PeerObjectAuth, AStrangerPosingAsAPeerGets403AndNotTheObject) {
  ASSERT_TRUE(start_cluster({.nodes = 2}));
  const std::string url = origin_url(kObject);
  const auto stored = fetch(0, kObject);
  ASSERT_EQ(stored.status, 200U);
  ASSERT_EQ(x_cache(fetch(0, kObject)), "HIT");
  const std::int64_t now = unix_now();
  const std::string other_url = origin_url("/obj/other?max_age=600");
  std::string forged = sign(url, "node-b", now);
  forged.back() = forged.back() == '0' ? '1' : '0';
  const struct {
    const char* what;
    std::string marker;
    std::string auth;
    const char* reason;
  } cases[] = {
      {"no header", "node-b", "", "missing"},
      {"a forged MAC", "node-b", forged, "bad_mac"},
      {"a header replayed from another URL", "node-b", sign(other_url, "node-b", now), "bad_mac"},
      {"an expired header", "node-b", sign(url, "node-b", now - 120), "expired"},
      {"a header from the future", "node-b", sign(url, "node-b", now + 120), "from_future"},
      {"a node that is no peer", "node-z", sign(url, "node-z", now), "unknown_node"},
      {"the receiver's own id", "node-a", sign(url, "node-a", now), "unknown_node"},
      {"a malformed header", "node-b", "node=node-b; t=1; mac=00", "malformed"},
  };
  for (const auto& c : cases) {
    const auto r = ask_as_peer(0, url, c.marker, c.auth);
    EXPECT_EQ(r.status, 403U) << c.what;
    EXPECT_NE(r.body, stored.body) << c.what;
    EXPECT_NE(r.body.find("peer request refused"), std::string::npos) << c.what << ": " << r.body;
  }
  const std::string metrics = admin(0, "/metrics").body;
  for (const auto& [reason, n] :
       {std::pair{"missing", 1}, std::pair{"bad_mac", 2}, std::pair{"expired", 1},
        std::pair{"from_future", 1}, std::pair{"unknown_node", 2}, std::pair{"malformed", 1}}) {
    EXPECT_TRUE(has_line(metrics, std::string("sumcache_peer_auth_refused_total{reason=\"") +
                                      reason + "\"} " + std::to_string(n)))
        << reason << "\n"
        << metrics;
  }
  // The first refusal is logged; later ones within the second are only counted (next test).
  EXPECT_NE(log_of(0).find("claiming node node-b refused: peer request without a "
                           "Sumcache-Peer-Auth header"),
            std::string::npos)
      << log_of(0);
  // The same request, signed with the secret, is served: the refusals were the header's.
  const auto genuine = ask_as_peer(0, url, "node-b", sign(url, "node-b", unix_now()));
  EXPECT_EQ(genuine.status, 200U);
  EXPECT_EQ(genuine.body, stored.body);
  EXPECT_EQ(origin_.log().count("/obj/guarded"), 1U);
}

TEST_F(PeerObjectAuth, RefusalsAreLoggedOncePerSecondWithACount) {
  ASSERT_TRUE(start_cluster({.nodes = 2}));
  const std::string url = origin_url(kObject);
  constexpr int kAttempts = 30;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kAttempts; ++i) EXPECT_EQ(ask_as_peer(0, url, "node-b", "").status, 403U);
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start)
          .count();
  const std::string metrics = admin(0, "/metrics").body;
  EXPECT_TRUE(has_line(metrics, R"(sumcache_peer_auth_refused_total{reason="missing"} 30)"))
      << metrics;
  // One line per second at most (plus one for a partial second at each end).
  const std::size_t lines = count_matches(log_of(0), "claiming node node-b refused");
  EXPECT_GE(lines, 1U);
  EXPECT_LE(lines, static_cast<std::size_t>(seconds) + 2) << log_of(0);
}

TEST_F(PeerObjectAuth, OnlyAVerifiedPeerPassesWithoutAPlaceInTheAllowList) {
  // Clients only from ::1; the nodes ask each other from 127.0.0.1, as peers at
  // another site would ask from an address the allow-list does not hold.
  ASSERT_TRUE(start_cluster({.nodes = 2,
                             .extra_json = R"("access": {"allow_clients": ["::1/128"]},)",
                             .listen_ipv6_too = true}));
  for (std::size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(nodes_[i].process->wait_for_line(
        "proxy listening on ::1:", std::chrono::seconds(10), Output::err));
  }
  const std::string url = origin_url(kObject);
  HttpClient at_a({.host = "::1", .port = nodes_[0].http_port});
  HttpClient at_b({.host = "::1", .port = nodes_[1].http_port});
  auto first = at_a.send({.target = url});
  ASSERT_TRUE(first.ok()) << first.error().message();
  ASSERT_EQ(first->status, 200U);
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  auto from_peer = at_b.send({.target = url});
  ASSERT_TRUE(from_peer.ok()) << from_peer.error().message();
  EXPECT_EQ(x_cache(*from_peer), "PEER-HIT") << log_of(1);
  EXPECT_EQ(from_peer->body, first->body);
  EXPECT_EQ(origin_.log().count("/obj/guarded"), 1U);

  // From 127.0.0.1 nothing else passes: neither a plain client nor the marker alone.
  auto stranger = http_get(nodes_[0].http_port, url);
  ASSERT_TRUE(stranger.ok());
  EXPECT_EQ(stranger->status, 403U);
  EXPECT_NE(stranger->body.find("is not allowed"), std::string::npos) << stranger->body;
  EXPECT_EQ(ask_as_peer(0, url, "node-b", "").status, 403U);
  // A verified peer gets what is stored and nothing else: a miss is a 504, not a fetch.
  const std::string absent = origin_url("/obj/absent?max_age=600");
  const auto miss = ask_as_peer(0, absent, "node-b", sign(absent, "node-b", unix_now()));
  EXPECT_EQ(miss.status, 504U);
  EXPECT_EQ(origin_.log().count("/obj/absent"), 0U);
}

TEST_F(PeerObjectAuth, WithoutASecretTheMarkerIsTrustedAndTheHeaderNeverGoesUpstream) {
  // icp mode needs no secret: the marker is taken at its word, as before.
  ASSERT_TRUE(start_cluster({.nodes = 2, .sharing = "icp", .secret = ""}));
  const std::string url = origin_url(kObject);
  const auto stored = fetch(0, kObject);
  ASSERT_EQ(stored.status, 200U);
  const auto r = ask_as_peer(0, url, "node-b", "");
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.body, stored.body);
  const auto echoed = fetch(0, "/echo", {{std::string(protocol::kPeerAuthHeader), "node=x"}});
  ASSERT_EQ(echoed.status, 200U);
  EXPECT_EQ(echoed.body.find(protocol::kPeerAuthHeader), std::string::npos) << echoed.body;
}

}  // namespace
}  // namespace sumcache::testing
