// The admin endpoint of a real sumcached in front of the real test origin:
// counters move exactly as a scripted sequence of requests implies, /stats
// and /metrics agree, and the access rules (token, allow list, methods) hold.
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/daemon/admin/metric_samples.h"
#include "tests/daemon/admin/promtool.h"
#include "tests/daemon/integration/proxy_fixture.h"

namespace sumcache::testing {
namespace {

using Json = nlohmann::json;

constexpr const char* kToken = "admin-token-for-tests-7f3a";

std::string admin_config(const std::string& extra = "") {
  return std::string(R"({"address": "127.0.0.1", "port": 0, "token": ")") + kToken + "\"" + extra +
         "}";
}

// application/x-www-form-urlencoded: everything but unreserved characters as %XX.
std::string form_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

class Admin : public ProxyTest {
 protected:
  bool start(const std::string& admin_json = admin_config(), const std::string& extra_json = "") {
    ProxyOptions options;
    options.admin_json = admin_json;
    options.extra_json = extra_json;
    if (!start_proxy(options)) return false;
    return find_admin_port();
  }

  bool find_admin_port() {
    auto match = daemon_->wait_for_line("admin listening on 127\\.0\\.0\\.1:([0-9]+)",
                                        std::chrono::seconds(10), Output::err);
    if (!match) {
      ADD_FAILURE() << "no admin listener:\n" << daemon_log();
      return false;
    }
    admin_port_ = static_cast<std::uint16_t>(std::stoi((*match)[1]));
    return true;
  }

  ClientResponse admin(const std::string& method, const std::string& target,
                       HeaderList headers = {}, const std::string& body = "") {
    HttpClient client({.host = "127.0.0.1", .port = admin_port_, .reuse_connection = false});
    auto r = client.send(
        {.method = method, .target = target, .headers = std::move(headers), .body = body});
    EXPECT_TRUE(r.ok()) << method << " " << target << ": " << r.error().message();
    return r.ok() ? std::move(r).value() : ClientResponse{};
  }

  Json stats() { return Json::parse(admin("GET", "/stats").body); }

  // The proxy counts a request after its response is written: a client that
  // has its response may ask /stats before the count lands. Bounded wait.
  Json stats_after(std::uint64_t requests) {
    Json s;
    for (int i = 0; i < 250; ++i) {
      s = stats();
      if (s["requests"]["total"].get<std::uint64_t>() >= requests &&
          s["latency_ms"]["hit"]["count"].get<std::uint64_t>() +
                  s["latency_ms"]["miss"]["count"].get<std::uint64_t>() +
                  s["latency_ms"]["other"]["count"].get<std::uint64_t>() >=
              requests) {
        return s;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "requests.total did not reach " << requests << ": " << s.dump();
    return s;
  }

  ClientResponse purge(const std::string& path, const std::string& token = kToken) {
    HeaderList headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
    if (!token.empty()) headers.push_back({"Authorization", "Bearer " + token});
    return admin("POST", "/purge", headers, "url=" + form_encode(origin_url(path)));
  }

  std::string x_cache(const std::string& path) {
    return fetch(path).header("X-Cache").value_or("<none>");
  }

  std::uint16_t admin_port_ = 0;
};

TEST_F(Admin, CountersFollowAMissAHitAPurgeAMissAndAn404) {
  ASSERT_TRUE(start());
  const std::string path = "/obj/seq?max_age=600&size=3000";
  EXPECT_EQ(x_cache(path), "MISS");
  EXPECT_EQ(x_cache(path), "HIT");
  const auto purged = purge(path);
  EXPECT_EQ(purged.status, 200U) << purged.body;
  EXPECT_EQ(Json::parse(purged.body)["purged"], 1);
  EXPECT_EQ(x_cache(path), "MISS");
  EXPECT_EQ(fetch("/status/404").status, 404U);

  const Json s = stats_after(4);
  EXPECT_EQ(s["node_id"], "test-node");
  EXPECT_EQ(s["requests"]["total"], 4);
  EXPECT_EQ(s["requests"]["by_result"]["MISS"], 3);
  EXPECT_EQ(s["requests"]["by_result"]["HIT"], 1);
  EXPECT_EQ(s["requests"]["by_status"], (Json{{"200", 3}, {"404", 1}}));
  EXPECT_EQ(s["requests"]["errors_by_status"], (Json{{"404", 1}}));
  EXPECT_EQ(s["hits"], (Json{{"memory", 1}, {"disk", 0}, {"peer", 0}}));
  EXPECT_EQ(s["misses"], 3);
  EXPECT_EQ(s["latency_ms"]["hit"]["count"], 1);
  EXPECT_EQ(s["latency_ms"]["miss"]["count"], 3);
  EXPECT_GT(s["latency_ms"]["miss"]["p50"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(s["ratios"]["since_start"]["hit"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(s["ratios"]["1m"]["hit"].get<double>(), 0.25);
  EXPECT_EQ(s["ratios"]["1m"]["requests"], 4);
  EXPECT_GT(s["bytes"]["out"].get<std::uint64_t>(), 3 * 3000U);
  EXPECT_GT(s["bytes"]["in"].get<std::uint64_t>(), 0U);
  // The object, stored again after the purge, and the 404 (heuristically
  // cacheable, RFC 9111 §4.2.2).
  EXPECT_EQ(s["store"]["memory"]["objects"], 2);
  EXPECT_EQ(origin_.log().count("/obj/seq"), 2U);

  const auto m = metric_samples(admin("GET", "/metrics").body);
  EXPECT_EQ(m.at(R"(sumcache_requests_total{result="miss"})"), "3");
  EXPECT_EQ(m.at(R"(sumcache_requests_total{result="hit"})"), "1");
  EXPECT_EQ(m.at(R"(sumcache_responses_total{code="404"})"), "1");
  EXPECT_EQ(m.at(R"(sumcache_cache_hits_total{tier="memory"})"), "1");
  EXPECT_EQ(m.at(R"(sumcache_cache_misses_total)"), "3");
  EXPECT_EQ(m.at(R"(sumcache_request_duration_seconds_count{result="hit"})"), "1");
  EXPECT_EQ(m.at(R"(sumcache_request_duration_seconds_count{result="miss"})"), "3");
  EXPECT_EQ(m.at(R"(sumcache_request_duration_seconds_bucket{result="miss",le="+Inf"})"), "3");
  EXPECT_EQ(m.at(R"(sumcache_hit_ratio{window="since_start",kind="hit"})"), "0.25");
  EXPECT_EQ(m.at(R"(sumcache_store_objects{tier="memory"})"), "2");
}

TEST_F(Admin, HitsFromTheDiskTierAreCountedAsDiskHits) {
  ASSERT_TRUE(start());
  const std::string path = "/obj/disk?max_age=600&size=2000";
  EXPECT_EQ(x_cache(path), "MISS");
  stop_proxy();
  ASSERT_TRUE(restart_proxy());
  ASSERT_TRUE(find_admin_port());
  EXPECT_EQ(x_cache(path), "HIT");
  EXPECT_EQ(x_cache(path), "HIT");  // promoted into memory by the first
  const Json s = stats_after(2);
  EXPECT_EQ(s["hits"], (Json{{"memory", 1}, {"disk", 1}, {"peer", 0}}));
}

TEST_F(Admin, FilterAndStoreAgreeAfterInsertsAndAPurge) {
  ASSERT_TRUE(start());
  for (int i = 0; i < 5; ++i) fetch("/obj/f" + std::to_string(i) + "?max_age=600");
  EXPECT_EQ(purge("/obj/f0?max_age=600").status, 200U);
  const Json f = Json::parse(admin("GET", "/filter").body);
  EXPECT_EQ(f["entries"], 4);
  EXPECT_EQ(f["store_objects"], 4);
  EXPECT_EQ(f["k"], 4);
  EXPECT_EQ(f["hash"], "xxh3_128");
  EXPECT_EQ(f["refused_removes"], 0);
  EXPECT_GT(f["set_bits"].get<std::uint64_t>(), 0U);
  EXPECT_NEAR(f["estimated_cardinality"].get<double>(), 4.0, 0.5);
  EXPECT_EQ(Json::parse(admin("GET", "/peers").body),
            (Json{{"peers", Json::array()}, {"transport", "mesh"}}));
}

TEST_F(Admin, PurgeNeedsTheTokenAndABadOneChangesNothing) {
  ASSERT_TRUE(start());
  const std::string path = "/obj/tok?max_age=600";
  fetch(path);
  const auto missing = purge(path, "");
  EXPECT_EQ(missing.status, 401U);
  EXPECT_EQ(missing.header("WWW-Authenticate").value_or("").rfind("Bearer", 0), 0U);
  const auto wrong = purge(path, std::string(kToken) + "x");
  EXPECT_EQ(wrong.status, 401U);
  EXPECT_NE(wrong.header("WWW-Authenticate").value_or("").find("invalid_token"), std::string::npos);
  EXPECT_EQ(x_cache(path), "HIT");
  EXPECT_EQ(purge(path).status, 200U);
  EXPECT_EQ(x_cache(path), "MISS");
  const auto json_body = admin(
      "POST", "/purge",
      {{"Authorization", std::string("Bearer ") + kToken}, {"Content-Type", "application/json"}},
      Json{{"url", origin_url("/obj/never")}}.dump());
  EXPECT_EQ(json_body.status, 404U);
  EXPECT_EQ(Json::parse(json_body.body)["purged"], 0);
}

TEST_F(Admin, WithoutAConfiguredTokenPurgeIsClosed) {
  ASSERT_TRUE(start(R"({"address": "127.0.0.1", "port": 0})"));
  fetch("/obj/nt?max_age=600");
  const auto r = purge("/obj/nt?max_age=600", "anything");
  EXPECT_EQ(r.status, 403U);
  EXPECT_NE(r.body.find("no admin token configured"), std::string::npos);
  EXPECT_EQ(x_cache("/obj/nt?max_age=600"), "HIT");
}

TEST_F(Admin, ClientsOutsideAdminAllowAreRefused) {
  ASSERT_TRUE(start(admin_config(R"(, "allow": ["10.0.0.0/8"])")));
  for (const char* path : {"/stats", "/healthz", "/metrics", "/nope"}) {
    EXPECT_EQ(admin("GET", path).status, 403U) << path;
  }
  fetch("/obj/al?max_age=600");
  // The PURGE method on the proxy port follows admin.allow too.
  EXPECT_EQ(fetch("/obj/al?max_age=600", {}, "PURGE").status, 403U);
  EXPECT_EQ(x_cache("/obj/al?max_age=600"), "HIT");
}

TEST_F(Admin, UnknownPathsAre404AndWrongMethods405) {
  ASSERT_TRUE(start());
  EXPECT_EQ(admin("GET", "/nope").status, 404U);
  const auto del = admin("DELETE", "/stats");
  EXPECT_EQ(del.status, 405U);
  EXPECT_EQ(del.header("Allow").value_or(""), "GET, HEAD");
  const auto get_purge = admin("GET", "/purge");
  EXPECT_EQ(get_purge.status, 405U);
  EXPECT_EQ(get_purge.header("Allow").value_or(""), "POST");
}

TEST_F(Admin, HealthReadinessAndDashboard) {
  ASSERT_TRUE(start());
  const auto health = admin("GET", "/healthz");
  EXPECT_EQ(health.status, 200U);
  EXPECT_EQ(health.body, "ok\n");
  EXPECT_EQ(admin("GET", "/readyz").status, 200U);
  const auto page = admin("GET", "/");
  EXPECT_EQ(page.status, 200U);
  EXPECT_EQ(page.header("Content-Type").value_or("").rfind("text/html", 0), 0U);
  EXPECT_EQ(page.header("Cache-Control").value_or(""), "no-store");
  const auto head = admin("HEAD", "/stats");
  EXPECT_EQ(head.status, 200U);
  EXPECT_TRUE(head.body.empty());
}

TEST_F(Admin, ConfigRedactsTheSecrets) {
  ASSERT_TRUE(start(admin_config(), R"("cluster": {"secret": "cluster-secret-for-tests-91c2"},)"));
  const auto r = admin("GET", "/config");
  ASSERT_EQ(r.status, 200U);
  const Json c = Json::parse(r.body);
  EXPECT_EQ(c["admin"]["token"], "<redacted>");
  EXPECT_EQ(c["cluster"]["secret"], "<redacted>");
  EXPECT_EQ(r.body.find(kToken), std::string::npos);
  EXPECT_EQ(r.body.find("cluster-secret-for-tests-91c2"), std::string::npos);
  EXPECT_EQ(c["node"]["id"], "test-node");
}

TEST_F(Admin, MetricsPassPromtool) {
  ASSERT_TRUE(start());
  fetch("/obj/p?max_age=600");
  fetch("/obj/p?max_age=600");
  fetch("/status/503");
  stats_after(3);
  const auto r = admin("GET", "/metrics");
  EXPECT_EQ(r.header("Content-Type").value_or(""), "text/plain; version=0.0.4; charset=utf-8");
  const auto check = promtool_check(r.body);
  EXPECT_TRUE(check.passed) << check.output;
}

TEST_F(Admin, PurgeMethodOnTheProxyPortRemovesEveryVariant) {
  ASSERT_TRUE(start());
  const std::string path = "/obj/pm?max_age=600&vary=Accept-Language";
  fetch(path, {{"Accept-Language", "en"}});
  fetch(path, {{"Accept-Language", "fr"}});
  const auto r = fetch(path, {}, "PURGE");
  EXPECT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(Json::parse(r.body)["purged"], 2);
  EXPECT_EQ(fetch(path, {{"Accept-Language", "en"}}).header("X-Cache").value_or(""), "MISS");
  EXPECT_EQ(fetch("/obj/pm-none", {}, "PURGE").status, 404U);
}

TEST_F(Admin, ConnectionsKeepAliveAndBodiesAreCapped) {
  ASSERT_TRUE(start());
  HttpClient client({.host = "127.0.0.1", .port = admin_port_});
  for (int i = 0; i < 3; ++i) {
    auto r = client.send({.method = "GET", .target = "/healthz"});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, 200U);
  }
  EXPECT_EQ(client.connections_opened(), 1U);
  const auto big = admin("POST", "/purge", {{"Authorization", std::string("Bearer ") + kToken}},
                         "url=" + std::string(70 * 1024, 'a'));
  EXPECT_EQ(big.status, 413U);
}

}  // namespace
}  // namespace sumcache::testing
