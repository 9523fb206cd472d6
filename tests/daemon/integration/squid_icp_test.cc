// ICP both ways with a real Squid (Debian's squid 5.7, docs/interop.md, "ICP with
// Squid"): a Squid sibling asks sumcached over ICP and fetches the HITs from its
// proxy port; sumcached asks a Squid and fetches its HITs with only-if-cached. One
// sumcached and one Squid on loopback, each naming the other; every wait polls a
// log or an endpoint under a deadline. The node runs on 127.0.0.3: Squid drops every
// ICP datagram from its own ICP address, whatever the port ("sent by myself").

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "tests/support/daemon_process.h"
#include "tests/support/http_client.h"
#include "tests/support/ports.h"
#include "tests/support/squid_process.h"
#include "tests/support/test_origin.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kAdminToken = "squid-icp-admin-token-0123456789";
constexpr const char* kNode = "127.0.0.3";  // Squid is on 127.0.0.1

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Squid's access log, native format: "... ACTION/CODE size METHOD URL - HIER/FROM type".
// The line for `url` fetched over HTTP (not its ICP query, logged as ICP_QUERY).
std::string http_line(const std::string& log, const std::string& url) {
  std::size_t start = 0;
  while (start < log.size()) {
    const auto end = log.find('\n', start);
    const std::string line = log.substr(start, end == std::string::npos ? end : end - start);
    if (line.find(" GET " + url + " ") != std::string::npos) return line;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

class SquidIcp : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!SquidProcess::installed()) GTEST_FAIL() << "squid is not installed: run scripts/setup";
    ASSERT_FALSE(origin_.start());
    squid_options_.http_port = free_port();
    squid_options_.icp_port = free_port();
    http_port_ = free_port();
    icp_port_ = free_port();
    admin_port_ = free_port();
  }
  void TearDown() override {
    squid_.stop();
    if (node_) node_->stop(SIGTERM, 10s);
  }

  // sumcached in forward mode, sharing icp, with the Squid as its one peer.
  // `peer_extra`: more fields of that peer entry, each followed by a comma.
  void start_node(const std::string& peer_extra = "") {
    if (node_) node_->stop(SIGTERM, 10s);
    node_ = std::make_unique<DaemonProcess>();
    const auto port = [](std::uint16_t p) { return std::to_string(p); };
    std::string config = R"({"node": {"id": "sumcache-a"}, "mode": "forward", "workers": 2,)";
    config += R"("listen": [{"address": ")" + std::string(kNode) + R"(", "port": )" +
              port(http_port_) + "}],";
    config += R"("admin": {"address": "127.0.0.1", "port": )" + port(admin_port_) +
              R"(, "token": ")" + kAdminToken + R"("},)";
    config += R"("cache": {"memory": {"max_bytes": "64MiB"}, "max_object_bytes": "8MiB"},)";
    config += R"("log": {"level": "info"},)";
    config += R"("cluster": {"sharing": "icp", "peer_timeout_ms": 2000, "icp_port": )" +
              port(icp_port_) + R"(, "peer_listen": {"address": ")" + kNode + R"(", "port": )" +
              port(free_port()) + "}},";
    config += R"("peers": [{"id": "squid", "host": "127.0.0.1", )" + peer_extra +
              R"("http_port": )" + port(squid_options_.http_port) + R"(, "icp_port": )" +
              port(squid_options_.icp_port) + "}]}";
    const auto path = node_->write_file("sumcache.json", config);
    ASSERT_FALSE(node_->start(SUMCACHED_PATH, {"--config", path.string()}));
    ASSERT_TRUE(node_->wait_for_port(http_port_, 10s, kNode)) << node_log();
    ASSERT_TRUE(node_->wait_for_line("icp: listening on udp", 10s, Output::err)) << node_log();
  }

  // The Squid, naming sumcached as its ICP sibling when `sibling`.
  // `allow_node` false: Squid's icp_access and http_access admit localhost alone.
  void start_squid(bool sibling, const std::string& extra = "", bool allow_node = true) {
    // Whole URLs in its log. Its netdb measures the loopback origin at 1 ms once it
    // fetched from it, and Squid goes DIRECT without asking its siblings to an origin
    // nearer than minimum_direct_rtt (400 ms) or minimum_direct_hops: both off.
    squid_options_.extra =
        "strip_query_terms off\nminimum_direct_hops 0\nminimum_direct_rtt 0\n" + extra;
    squid_options_.access =
        !allow_node ? std::string()
                    : "acl sumcache_node src " + std::string(kNode) +
                          "\nhttp_access allow sumcache_node\nicp_access allow sumcache_node\n";
    if (sibling) {
      squid_options_.extra += "\ncache_peer " + std::string(kNode) + " sibling " +
                              std::to_string(http_port_) + " " + std::to_string(icp_port_) +
                              " no-digest name=sumcache\n";
    }
    const std::string why = squid_.start(squid_options_);
    ASSERT_TRUE(why.empty()) << why;
    // Squid opens its ICP socket after its HTTP port: a query before that is never sent.
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (squid_.cache_log().find("Accepting ICP messages") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(20ms);
    }
    ASSERT_NE(squid_.cache_log().find("Accepting ICP messages"), std::string::npos)
        << squid_.cache_log();
  }

  std::string url(const std::string& name) const {
    return "http://127.0.0.1:" + std::to_string(origin_.port()) + "/obj/" + name +
           "?max_age=600&size=3000";
  }
  // Through sumcached (node) or the Squid.
  ClientResponse via(bool node, const std::string& target) {
    HttpClient client(ClientOptions{.host = node ? kNode : "127.0.0.1",
                                    .port = node ? http_port_ : squid_options_.http_port,
                                    .timeout = 10s,
                                    .reuse_connection = false});
    auto r = client.send({.target = target});
    EXPECT_TRUE(r.ok()) << target << ": " << r.error().message();
    return r.ok() ? r.value() : ClientResponse{};
  }
  // Squid writes an access line once the transaction ends: wait for it.
  std::string wait_squid_line(const std::string& target) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (auto line = http_line(squid_.access_log(), target); !line.empty()) return line;
      std::this_thread::sleep_for(20ms);
    }
    return {};
  }
  std::string node_log() const { return node_ ? node_->output(Output::err) : std::string(); }
  std::string admin_get(const std::string& target) {
    HttpClient admin(ClientOptions{.port = admin_port_, .timeout = 5s});
    auto r = admin.send(
        {.target = target, .headers = {{"Authorization", std::string("Bearer ") + kAdminToken}}});
    EXPECT_TRUE(r.ok() && r.value().status == 200) << target;
    return r.ok() ? r.value().body : std::string();
  }
  nlohmann::json squid_peer_status() {
    const auto doc = nlohmann::json::parse(admin_get("/peers"), nullptr, false);
    if (doc.is_discarded() || !doc.contains("peers") || doc["peers"].empty()) return {};
    return doc["peers"][0];
  }

  TestOrigin origin_;
  SquidOptions squid_options_;
  SquidProcess squid_;
  std::unique_ptr<DaemonProcess> node_;
  std::uint16_t http_port_ = 0;
  std::uint16_t icp_port_ = 0;
  std::uint16_t admin_port_ = 0;
};

// Squid -> sumcached: our HIT brings Squid to our proxy port (SIBLING_HIT), our
// MISS sends it DIRECT; the ICP exchange shows in our /peers.
TEST_F(SquidIcp, SquidSiblingFetchesOurHitsAndGoesDirectOnOurMisses) {
  // query_icmp: Squid's queries ask for the source RTT (ICP_FLAG_SRC_RTT).
  start_node();
  start_squid(true, "query_icmp on\n");
  const std::string a = url("squid-asks-a");
  const std::string b = url("squid-asks-b");
  ASSERT_EQ(via(true, a).status, 200u);  // sumcached now holds A
  ASSERT_EQ(origin_.log().count("/obj/squid-asks-a"), 1u);

  const auto ra = via(false, a);
  EXPECT_EQ(ra.status, 200u);
  const std::string line_a = wait_squid_line(a);
  EXPECT_NE(line_a.find("SIBLING_HIT/127.0.0.3"), std::string::npos)
      << line_a << "\n"
      << squid_.access_log() << squid_.cache_log();
  EXPECT_EQ(origin_.log().count("/obj/squid-asks-a"), 1u);

  const auto rb = via(false, b);
  EXPECT_EQ(rb.status, 200u);
  const std::string line_b = wait_squid_line(b);
  EXPECT_NE(line_b.find("HIER_DIRECT/"), std::string::npos) << line_b << "\n"
                                                            << squid_.access_log();
  EXPECT_EQ(origin_.log().count("/obj/squid-asks-b"), 1u);

  // Squid's two queries and our two answers (HIT, MISS), and our own query for A.
  const auto peer = squid_peer_status();
  ASSERT_FALSE(peer.is_null());
  EXPECT_GE(peer["messages_received"].get<std::uint64_t>(), 3u) << peer.dump();
  EXPECT_GE(peer["messages_sent"].get<std::uint64_t>(), 3u) << peer.dump();
  EXPECT_EQ(peer["messages_rejected"].get<std::uint64_t>(), 0u) << peer.dump();
  EXPECT_EQ(node_log().find("denied a query"), std::string::npos) << node_log();
  const std::string metrics = admin_get("/metrics");
  EXPECT_NE(metrics.find(R"(sumcache_icp_replies_total{direction="sent",opcode="hit"} 1)"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find(R"(sumcache_icp_replies_total{direction="sent",opcode="miss"} 1)"),
            std::string::npos)
      << metrics;
}

// sumcached -> Squid: Squid's HIT is fetched from its http_port (PEER-HIT), its
// MISS sends us to the origin; Squid logs both ICP queries.
TEST_F(SquidIcp, WeFetchSquidsHitsAndGoToTheOriginOnItsMisses) {
  start_node();
  start_squid(false);
  const std::string c = url("we-ask-c");
  const std::string d = url("we-ask-d");
  ASSERT_EQ(via(false, c).status, 200u);  // Squid now holds C
  ASSERT_FALSE(wait_squid_line(c).empty());
  ASSERT_EQ(origin_.log().count("/obj/we-ask-c"), 1u);

  const auto rc = via(true, c);
  EXPECT_EQ(rc.status, 200u);
  EXPECT_EQ(x_cache(rc), "PEER-HIT") << node_log();
  EXPECT_EQ(origin_.log().count("/obj/we-ask-c"), 1u);

  // A reply later than a query's window marks Squid down until a probe is
  // answered (docs/icp.md, "Dead peers"); on a loaded machine that can happen
  // to C's query, so D waits until Squid is up again.
  for (const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
       std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(std::chrono::milliseconds(50))) {
    const auto peer = squid_peer_status();
    if (peer.is_object() && peer["state"] == "up") break;
  }
  const auto rd = via(true, d);
  EXPECT_EQ(rd.status, 200u);
  EXPECT_EQ(x_cache(rd), "MISS");
  EXPECT_EQ(origin_.log().count("/obj/we-ask-d"), 1u);

  const std::string log = squid_.access_log();
  EXPECT_EQ(count_of(log, "UDP_HIT/000 "), 1u) << log;
  EXPECT_NE(log.find("ICP_QUERY " + c), std::string::npos) << log;
  EXPECT_NE(log.find("UDP_MISS/000"), std::string::npos) << log;
  EXPECT_NE(log.find("ICP_QUERY " + d), std::string::npos) << log;
  EXPECT_TRUE(http_line(log, d).empty()) << "Squid was asked for D over HTTP: " << log;
  const auto peer = squid_peer_status();
  ASSERT_FALSE(peer.is_null());
  EXPECT_EQ(peer["true_hits"].get<std::uint64_t>(), 1u) << peer.dump();
  EXPECT_EQ(peer["false_hits"].get<std::uint64_t>(), 0u) << peer.dump();
}

// We answer HIT for a stale copy too (docs/interop.md, "Stale objects"): Squid's
// fetch says only-if-cached, we answer 504, and Squid re-forwards DIRECT, so its
// client still gets the object.
TEST_F(SquidIcp, OurHitOnAStaleCopyCostsSquidARoundTripNotTheObject) {
  start_node();
  start_squid(true);
  const std::string s =
      "http://127.0.0.1:" + std::to_string(origin_.port()) + "/obj/stale-s?max_age=1&size=3000";
  ASSERT_EQ(via(true, s).status, 200u);
  // Stale once only-if-cached finds nothing usable here: polled, at most 10 s.
  HttpClient local(
      ClientOptions{.host = kNode, .port = http_port_, .timeout = 5s, .reuse_connection = false});
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  unsigned status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = local.send({.target = s, .headers = {{"Cache-Control", "only-if-cached"}}});
    status = r.ok() ? r.value().status : 0;
    if (status == 504) break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(status, 504u);

  const auto r = via(false, s);
  EXPECT_EQ(r.status, 200u);
  const std::string line = wait_squid_line(s);
  EXPECT_NE(line.find("HIER_DIRECT/"), std::string::npos) << line << "\n" << squid_.access_log();
  EXPECT_EQ(origin_.log().count("/obj/stale-s"), 2u);
  const std::string metrics = admin_get("/metrics");
  EXPECT_NE(metrics.find(R"(sumcache_icp_replies_total{direction="sent",opcode="hit"} 1)"),
            std::string::npos)
      << metrics;
}

// A Squid with udp_outgoing_address sends its queries from that address (on its
// icp_port) and its replies from udp_incoming_address. Until the peer entry names
// that address, its queries are a stranger's: DENIED, logged, counted, and Squid
// goes DIRECT (past 95% of 100+ replies it would stop asking this node at all).
TEST_F(SquidIcp, ASquidsOutgoingAddressIsThePeersWithIcpSourceAddress) {
  start_node();
  start_squid(true, "udp_outgoing_address 127.0.0.2\n");
  const std::string e = url("outgoing-e");
  ASSERT_EQ(via(true, e).status, 200u);
  EXPECT_EQ(via(false, e).status, 200u);
  const std::string line_e = wait_squid_line(e);
  EXPECT_NE(line_e.find("HIER_DIRECT/"), std::string::npos) << line_e;
  EXPECT_TRUE(node_->wait_for_line(
      "icp: denied a query from 127\\.0\\.0\\.2:" + std::to_string(squid_options_.icp_port), 10s,
      Output::err))
      << node_log();
  const std::string metrics = admin_get("/metrics");
  EXPECT_NE(metrics.find(R"(sumcache_icp_replies_total{direction="sent",opcode="denied"} 1)"),
            std::string::npos)
      << metrics;

  start_node(R"("icp_source_address": "127.0.0.2", )");
  const std::string f = url("outgoing-f");
  ASSERT_EQ(via(true, f).status, 200u);
  EXPECT_EQ(via(false, f).status, 200u);
  const std::string line_f = wait_squid_line(f);
  EXPECT_NE(line_f.find("SIBLING_HIT/127.0.0.3"), std::string::npos) << line_f << "\n"
                                                                     << squid_.cache_log();
  EXPECT_EQ(origin_.log().count("/obj/outgoing-f"), 1u);
  EXPECT_EQ(node_log().find("denied a query"), std::string::npos) << node_log();
}

// Squid's default icp_access denies everyone: a node it does not admit gets DENIED,
// logged and counted here, and goes to the origin without waiting for a timeout.
TEST_F(SquidIcp, ASquidThatDeniesOurQueriesIsLoggedAndCounted) {
  start_node();
  start_squid(false, "", false);
  const std::string g = url("denied-g");
  const auto r = via(true, g);
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(x_cache(r), "MISS");
  EXPECT_EQ(origin_.log().count("/obj/denied-g"), 1u);
  EXPECT_TRUE(node_->wait_for_line("icp: peer squid .* answered DENIED", 10s, Output::err))
      << node_log();
  const std::string metrics = admin_get("/metrics");
  EXPECT_NE(metrics.find(R"(sumcache_icp_replies_total{direction="received",opcode="denied"} 1)"),
            std::string::npos)
      << metrics;
  EXPECT_NE(squid_.access_log().find("UDP_DENIED/000"), std::string::npos) << squid_.access_log();
}

}  // namespace
}  // namespace sumcache::testing
