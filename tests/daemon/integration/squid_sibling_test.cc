// sumcache as a digest sibling of a real Squid (docs/interop.md, "sumcache as
// a Squid digest sibling"): a Squid whose only peer is sumcached (`sibling,
// no-query`, digests on) fetches sumcached's digest and then routes a miss
// for an object sumcached holds to it (CD_SIBLING_HIT), while an object
// sumcached does not hold goes DIRECT without a word to sumcached.
//
// Timing (Squid's src/peer_digest.cc): Squid asks for a peer's digest only
// when a peer selection first consults it (peerDigestLookup ->
// peerDigestNeeded), at once for the first fetch, then no more often than
// every 5 min. So the object is stored and in sumcached's digest (polled in
// /metrics) before Squid starts; a warm-up request through Squid triggers
// the fetch; and Squid's cache.log (debug section 72 at level 2) says when
// the digest is usable. Every wait polls with a deadline.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "protocol/squid_digest.h"
#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/http_client.h"
#include "tests/support/ports.h"
#include "tests/support/squid_process.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

// Polls `probe` every 50 ms until it is true or `timeout` passes.
template <class F>
bool eventually(F&& probe, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!probe()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

std::size_t count_lines_with(const std::string& log, const std::string& a, const std::string& b) {
  std::istringstream in(log);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find(a) != std::string::npos && line.find(b) != std::string::npos) ++n;
  }
  return n;
}

class SquidSibling : public ProxyTest {
 protected:
  void SetUp() override {
    if (!SquidProcess::installed()) GTEST_FAIL() << "squid is not installed: run scripts/setup";
    ProxyTest::SetUp();
    ProxyOptions options;
    options.admin_json = R"({"address": "127.0.0.1", "port": 0})";
    options.extra_json = R"("cluster": {"squid_digest": {"rebuild_interval_ms": 1000}},)";
    ASSERT_TRUE(start_proxy(options));
  }

  std::string sumcache_access_log() const {
    std::ifstream in(work_.path() / "access.log");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // Squid with sumcached as its only peer: a sibling it never queries by ICP
  // (no-query) but by digest (the default), and no netdb exchange.
  std::string start_squid() {
    SquidOptions options;
    options.http_port = free_port();
    options.extra = "cache_peer 127.0.0.1 sibling " + std::to_string(port_) +
                    " 0 no-query no-netdb-exchange name=sumcache\n"
                    // After the warm-up fetch Squid's netdb has the origin at ~1 ms and
                    // 0 hops, and under minimum_direct_rtt (400 ms) or minimum_direct_hops
                    // (4) it goes DIRECT without consulting any peer (peer_select.cc,
                    // checkNetdbDirect). Everything here is on loopback.
                    "minimum_direct_rtt 0\n"
                    "minimum_direct_hops 0\n"
                    "debug_options ALL,1 72,2\n";
    return squid_.start(options);
  }

  ClientResponse through_squid(const std::string& url) {
    HttpClient client(ClientOptions{.port = squid_.http_port(), .reuse_connection = false});
    auto r = client.send({.target = url});
    EXPECT_TRUE(r.ok()) << url << ": " << r.error().message();
    return r.ok() ? std::move(r).value() : ClientResponse{};
  }

  SquidProcess squid_;
};

TEST_F(SquidSibling, RoutesAMissForAnObjectSumcacheHoldsToItByItsDigest) {
  const std::string held = "/obj/squid-sibling-held";
  const std::string held_url = origin_url(held + "?max_age=600");
  // sumcached holds the object...
  const auto first = fetch(held + "?max_age=600");
  ASSERT_EQ(first.status, 200);
  ASSERT_EQ(origin_.log().count(held), 1u);
  // ...and its digest (rebuilt every second) has it before Squid first asks.
  ASSERT_EQ(metric_value("sumcache_squid_digest_entries", "1"), "1");

  const std::string why = start_squid();
  ASSERT_TRUE(why.empty()) << why;
  // The first selection that consults the peer makes Squid fetch its digest;
  // this request itself goes DIRECT (no digest yet).
  const std::string warm_up = "/obj/squid-sibling-warm-up";
  ASSERT_EQ(through_squid(origin_url(warm_up + "?max_age=600")).status, 200);
  ASSERT_EQ(metric_value("sumcache_squid_digest_requests_total{status=\"200\"}", "1"), "1")
      << daemon_log();
  // peerDigestPDFinish says "received valid digest from" or, when it finds its
  // stored copy complete, "re-used old digest from": usable either way; a
  // refused digest is "disabling (...) digest from".
  const auto usable = [](const std::string& log) {
    return log.find("received valid digest from 127.0.0.1") != std::string::npos ||
           log.find("re-used old digest from 127.0.0.1") != std::string::npos;
  };
  ASSERT_TRUE(eventually(
      [&] {
        const std::string log = squid_.cache_log();
        return usable(log) || log.find("digest from 127.0.0.1") != std::string::npos;
      },
      10s))
      << squid_.cache_log();
  ASSERT_TRUE(usable(squid_.cache_log())) << squid_.cache_log();

  // An object sumcached does not hold: Squid goes to the origin and never asks sumcached.
  const std::string absent = "/obj/squid-sibling-absent";
  ASSERT_EQ(through_squid(origin_url(absent + "?max_age=600")).status, 200);
  EXPECT_EQ(origin_.log().count(absent), 1u);

  // The object sumcached holds: Squid fetches it from sumcached, not from the origin.
  const auto hit = through_squid(held_url);
  EXPECT_EQ(hit.status, 200);
  EXPECT_EQ(hit.body, first.body);
  EXPECT_EQ(origin_.log().count(held), 1u) << "the origin was asked again";

  squid_.stop();  // flushes its access log
  const std::string squid_log = squid_.access_log();
  EXPECT_EQ(count_lines_with(squid_log, held, "CD_SIBLING_HIT/127.0.0.1"), 1u) << squid_log;
  EXPECT_EQ(count_lines_with(squid_log, absent, "HIER_DIRECT/127.0.0.1"), 1u) << squid_log;
  EXPECT_EQ(count_lines_with(squid_log, absent, "SIBLING"), 0u) << squid_log;

  // sumcached served Squid's request from its cache; it saw none for the absent object.
  ASSERT_TRUE(
      eventually([&] { return count_lines_with(sumcache_access_log(), held, "HIT") >= 1; }, 10s))
      << sumcache_access_log();
  EXPECT_EQ(count_lines_with(sumcache_access_log(), absent, ""), 0u) << sumcache_access_log();
  EXPECT_EQ(count_lines_with(sumcache_access_log(), "/squid-internal-periodic/store_digest", ""),
            1u)
      << sumcache_access_log();
}

// The digest as Squid's fetcher gets it from sumcached, without a Squid:
// origin-form with Host (what Squid 5.7 sends) and absolute-form alike, the
// held object's Squid key in it, If-Modified-Since answered 304, HEAD and
// other methods; and another host's URL with the same path is proxied as usual.
TEST_F(SquidSibling, ServesItsDigestAsSquidServesItsOwn) {
  const std::string held = "/obj/squid-digest-held?max_age=600";
  ASSERT_EQ(fetch(held).status, 200);
  ASSERT_EQ(metric_value("sumcache_squid_digest_entries", "1"), "1");
  const std::string authority = "127.0.0.1:" + std::to_string(port_);
  const std::string path = protocol::kSquidDigestPath;
  HttpClient client(ClientOptions{.port = port_, .reuse_connection = false});

  auto got = client.send({.target = path, .headers = {{"Host", authority}}});
  ASSERT_TRUE(got.ok()) << got.error().message();
  EXPECT_EQ(got->status, 200u);
  EXPECT_EQ(got->reason, "Cache Digest OK");
  EXPECT_EQ(got->header("Content-Type"), "application/cache-digest");
  ASSERT_TRUE(got->header("Last-Modified"));
  ASSERT_TRUE(got->header("Expires"));
  protocol::SquidDigest digest;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(got->body.data());
  ASSERT_FALSE(protocol::SquidDigest::decode({bytes, got->body.size()},
                                             protocol::kSquidDigestMaxMaskBytes, digest));
  EXPECT_EQ(digest.header().count, 1u);
  EXPECT_TRUE(digest.contains(protocol::squid_store_key(origin_url(held))));
  EXPECT_FALSE(digest.contains(protocol::squid_store_key(origin_url("/obj/not-held"))));

  const auto absolute = client.send({.target = "http://" + authority + path});
  ASSERT_TRUE(absolute.ok());
  EXPECT_EQ(absolute->status, 200u);
  EXPECT_EQ(absolute->body, got->body);

  // Squid's fetcher revalidates its stored copy with If-Modified-Since.
  const auto not_modified = client.send(
      {.target = path,
       .headers = {{"Host", authority}, {"If-Modified-Since", *got->header("Last-Modified")}}});
  ASSERT_TRUE(not_modified.ok());
  EXPECT_EQ(not_modified->status, 304u);
  EXPECT_TRUE(not_modified->body.empty());

  const auto head =
      client.send({.method = "HEAD", .target = path, .headers = {{"Host", authority}}});
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->status, 200u);
  EXPECT_EQ(head->header("Content-Length"), std::to_string(got->body.size()));
  const auto post = client.send(
      {.method = "POST", .target = path, .headers = {{"Host", authority}}, .body = "x"});
  ASSERT_TRUE(post.ok());
  EXPECT_EQ(post->status, 405u);
  EXPECT_EQ(post->header("Allow"), "GET, HEAD");
  EXPECT_EQ(metric_value(R"(sumcache_squid_digest_requests_total{status="304"})", "1"), "1");
  EXPECT_EQ(metric_value(R"(sumcache_squid_digest_requests_total{status="405"})", "1"), "1");

  // The same path on another host (here the origin) is an ordinary proxied URL.
  const auto other = fetch(path);
  EXPECT_EQ(other.status, 404u);
  EXPECT_EQ(origin_.log().count(path), 1u);
}

// On demand: with an hour between builds, the admin's POST /squid-digest
// (with the admin token) makes a newly stored object show in the digest now.
class SquidDigestOnDemand : public ProxyTest {
 protected:
  static constexpr const char* kToken = "squid-digest-admin-token-0123456789";
  void SetUp() override {
    ProxyTest::SetUp();
    ProxyOptions options;
    options.admin_json =
        std::string(R"({"address": "127.0.0.1", "port": 0, "token": ")") + kToken + R"("})";
    options.extra_json = R"("cluster": {"squid_digest": {"rebuild_interval_ms": 3600000}},)";
    ASSERT_TRUE(start_proxy(options));
  }
  ClientResponse post_rebuild(HeaderList headers) {
    HttpClient client({.host = "127.0.0.1", .port = admin_port(), .reuse_connection = false});
    auto r = client.send({.method = "POST", .target = "/squid-digest", .headers = headers});
    EXPECT_TRUE(r.ok()) << r.error().message();
    return r.ok() ? std::move(r).value() : ClientResponse{};
  }
};

TEST_F(SquidDigestOnDemand, AnAdminRebuildTakesInAnObjectStoredAfterTheLastBuild) {
  ASSERT_EQ(metric_value("sumcache_squid_digest_builds_total", "1"), "1");
  ASSERT_EQ(fetch("/obj/on-demand?max_age=600").status, 200);
  ASSERT_EQ(x_cache(fetch("/obj/on-demand?max_age=600")), "HIT");  // stored
  EXPECT_EQ(metric_value("sumcache_squid_digest_entries", "0"), "0");
  EXPECT_EQ(post_rebuild({}).status, 401u);  // a state change needs the token
  const auto accepted = post_rebuild({{"Authorization", std::string("Bearer ") + kToken}});
  EXPECT_EQ(accepted.status, 202u) << accepted.body;
  EXPECT_EQ(metric_value("sumcache_squid_digest_entries", "1"), "1");
  EXPECT_EQ(metric_value("sumcache_squid_digest_rebuilds_requested_total", "1"), "1");
}

}  // namespace
}  // namespace sumcache::testing
