// Partial content through a real sumcached and a real origin, in forward and
// reverse mode (RFC 9111 §3.3, §3.4; RFC 9110 §14, §15.3.7): 206s stored,
// ranges served from them, stored ranges combined into a complete response,
// and only the missing part asked of the origin. Each row checks what the
// client got (status, Content-Range, bytes), X-Cache, and exactly what reached
// the origin (the Range and If-Range it was sent). The origin's /obj answers
// Range with 206 when given ranges=1 (tests/support/test_origin.h).

#include <chrono>
#include <optional>
#include <thread>

#include "protocol/peer_auth.h"
#include "tests/daemon/admin/metric_samples.h"
#include "tests/daemon/integration/cluster_fixture.h"
#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/deterministic_body.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kSize = 10;
constexpr const char* kNotAsked = "(not asked)";

struct Step {
  HeaderList request;  // Range, If-Range, X-Version
  unsigned status = 200;
  std::string content_range;  // "" when none is expected
  std::string x_cache;
  // The Range the origin got ("" for none), or kNotAsked when the step must not reach it.
  std::string upstream_range;
  std::string upstream_if_range = "";  // checked when the origin is asked
  std::string seed = "";               // body seed of the representation the client gets
};

struct Case {
  const char* name;
  const char* rule;
  const char* query;  // after "/obj/<name>?"
  std::vector<Step> steps;
};

const std::string kBase = "max_age=3600&ranges=1&size=10";

const Case kCases[] = {
    {"partial_reuse_partial",
     "RFC 9111 §3.3: a stored 206 answers the same range",
     "etag=p1",
     {{{{"Range", "bytes=-5"}}, 206, "bytes 5-9/10", "MISS", "bytes=-5"},
      {{{"Range", "bytes=-5"}}, 206, "bytes 5-9/10", "HIT", kNotAsked}}},
    {"complete_reuse_byterange",
     "RFC 9110 §14.1.2: a range of a stored 200",
     "etag=c1",
     {{{}, 200, "", "MISS", ""},
      {{{"Range", "bytes=0-1"}}, 206, "bytes 0-1/10", "HIT", kNotAsked}}},
    {"complete_reuse_no_last",
     "RFC 9110 §14.1.2: first-pos without last-pos",
     "etag=c2",
     {{{}, 200, "", "MISS", ""}, {{{"Range", "bytes=1-"}}, 206, "bytes 1-9/10", "HIT", kNotAsked}}},
    {"complete_reuse_suffix",
     "RFC 9110 §14.1.2: suffix-range",
     "etag=c3",
     {{{}, 200, "", "MISS", ""}, {{{"Range", "bytes=-1"}}, 206, "bytes 9-9/10", "HIT", kNotAsked}}},
    {"partial_reuse_byterange",
     "RFC 9111 §3.3: a smaller range inside a stored 206",
     "etag=p2",
     {{{{"Range", "bytes=-5"}}, 206, "bytes 5-9/10", "MISS", "bytes=-5"},
      {{{"Range", "bytes=6-8"}}, 206, "bytes 6-8/10", "HIT", kNotAsked}}},
    {"partial_reuse_no_last",
     "RFC 9111 §3.3: bytes=N- resolved against the complete length",
     "etag=p3",
     {{{{"Range", "bytes=-5"}}, 206, "bytes 5-9/10", "MISS", "bytes=-5"},
      {{{"Range", "bytes=6-"}}, 206, "bytes 6-9/10", "HIT", kNotAsked}}},
    {"partial_reuse_suffix",
     "RFC 9111 §3.3: bytes=-N resolved against the complete length",
     "etag=p4",
     {{{{"Range", "bytes=-5"}}, 206, "bytes 5-9/10", "MISS", "bytes=-5"},
      {{{"Range", "bytes=-1"}}, 206, "bytes 9-9/10", "HIT", kNotAsked}}},
    {"partial_overlap",
     "RFC 9111 §3.4: a range partly stored asks for the rest only",
     "etag=p5",
     {{{{"Range", "bytes=5-9"}}, 206, "bytes 5-9/10", "MISS", "bytes=5-9"},
      {{{"Range", "bytes=2-6"}}, 206, "bytes 2-6/10", "MISS", "bytes=2-4", "\"p5\""},
      {{{"Range", "bytes=2-9"}}, 206, "bytes 2-9/10", "HIT", kNotAsked}}},
    {"combine_two_206s",
     "RFC 9111 §3.4: ranges with one strong validator combine; whole: a 200",
     "etag=k1",
     {{{{"Range", "bytes=0-4"}}, 206, "bytes 0-4/10", "MISS", "bytes=0-4"},
      {{{"Range", "bytes=5-9"}}, 206, "bytes 5-9/10", "MISS", "bytes=5-", "\"k1\""},
      {{}, 200, "", "HIT", kNotAsked},
      {{{"Range", "bytes=3-6"}}, 206, "bytes 3-6/10", "HIT", kNotAsked}}},
    {"complete_missing_part",
     "RFC 9111 §3.4: only the missing part is asked, with If-Range",
     "etag=m1",
     {{{{"Range", "bytes=0-4"}}, 206, "bytes 0-4/10", "MISS", "bytes=0-4"},
      {{}, 200, "", "MISS", "bytes=5-", "\"m1\""},
      {{}, 200, "", "HIT", kNotAsked}}},
    {"extend_range",
     "RFC 9111 §3.4: a longer range asks for what is missing of it",
     "etag=m2",
     {{{{"Range", "bytes=0-4"}}, 206, "bytes 0-4/10", "MISS", "bytes=0-4"},
      {{{"Range", "bytes=2-7"}}, 206, "bytes 2-7/10", "MISS", "bytes=5-7", "\"m2\""},
      {{{"Range", "bytes=1-6"}}, 206, "bytes 1-6/10", "HIT", kNotAsked}}},
    {"changed_representation",
     "RFC 9110 §13.1.5: If-Range fails, the full 200 replaces",
     "etag=v1&etag_from=X-Version",
     {{{{"Range", "bytes=0-4"}}, 206, "bytes 0-4/10", "MISS", "bytes=0-4"},
      {{{"X-Version", "v2"}}, 200, "", "MISS", "bytes=5-", "\"v1\"", "|\"v2\""},
      {{{"X-Version", "v2"}}, 200, "", "HIT", kNotAsked, "", "|\"v2\""},
      {{{"Range", "bytes=0-4"}, {"X-Version", "v2"}},
       206,
       "bytes 0-4/10",
       "HIT",
       kNotAsked,
       "",
       "|\"v2\""}}},
    {"no_strong_validator",
     "RFC 9111 §3.4: without a strong validator nothing is combined",
     "",
     {{{{"Range", "bytes=0-4"}}, 206, "bytes 0-4/10", "MISS", "bytes=0-4"},
      {{{"Range", "bytes=5-9"}}, 206, "bytes 5-9/10", "MISS", "bytes=5-9"},
      {{{"Range", "bytes=5-9"}}, 206, "bytes 5-9/10", "HIT", kNotAsked},
      {{}, 200, "", "MISS", ""}}},
    {"weak_validator",
     "RFC 9111 §3.4: a weak ETag is no strong validator",
     "etag=W/%22w1%22",
     {{{{"Range", "bytes=0-4"}}, 206, "bytes 0-4/10", "MISS", "bytes=0-4"},
      {{}, 200, "", "MISS", ""}}},
};

std::string header_or(const ClientResponse& r, std::string_view name) {
  return r.header(name).value_or("");
}

// The bytes a client must get: the whole representation, or the range its
// Content-Range names.
std::string expected_body(const std::string& path, const Step& step) {
  const std::string whole = deterministic_body(path, step.seed, kSize);
  if (step.content_range.empty()) return whole;
  const auto dash = step.content_range.find('-');
  const auto slash = step.content_range.find('/');
  const auto first = std::stoul(step.content_range.substr(6, dash - 6));
  const auto last = std::stoul(step.content_range.substr(dash + 1, slash - dash - 1));
  return whole.substr(first, last - first + 1);
}

class PartialConformance : public BothModes {};
INSTANTIATE_TEST_SUITE_P(Modes, PartialConformance, kBothModes, mode_name);

TEST_P(PartialConformance, Table) {
  for (const Case& c : kCases) {
    const std::string path = std::string("/obj/") + c.name;
    const std::string target = path + "?" + kBase + (*c.query ? "&" : "") + c.query;
    for (std::size_t i = 0; i < c.steps.size(); ++i) {
      const Step& step = c.steps[i];
      SCOPED_TRACE(std::string(c.name) + " step " + std::to_string(i) + " (" + c.rule + ")");
      const std::size_t asked_before = origin_.log().count(path);
      const auto r = fetch(target, step.request);
      EXPECT_EQ(r.status, step.status);
      EXPECT_EQ(header_or(r, "Content-Range"), step.content_range);
      EXPECT_EQ(header_or(r, "X-Cache"), step.x_cache);
      EXPECT_EQ(r.body, expected_body(path, step));
      if (step.upstream_range == kNotAsked) {
        EXPECT_EQ(origin_.log().count(path), asked_before);
        continue;
      }
      ASSERT_EQ(origin_.log().count(path), asked_before + 1);
      const auto entries = origin_.log().entries();
      const LoggedRequest& sent = entries.back();
      EXPECT_EQ(find_header(sent.headers, "Range").value_or(""), step.upstream_range);
      EXPECT_EQ(find_header(sent.headers, "If-Range").value_or(""), step.upstream_if_range);
    }
  }
}

// RFC 9110 §14.4, §15.3.7: a 206 whose Content-Range is missing, malformed or
// does not match its body is relayed to the client as it came, never stored;
// each is counted in sumcache_cache_partial_invalid_total and logged.
class DamagedPartial : public BothModes {
 protected:
  ProxyOptions extra_options() const override {
    ProxyOptions options;
    options.admin_json = R"({"address": "127.0.0.1", "port": 0})";
    return options;
  }

  std::string partial_invalid() {
    auto port =
        daemon_->wait_for_line("admin listening on 127\\.0\\.0\\.1:([0-9]+)", 10s, Output::err);
    if (!port) return "no admin port";
    HttpClient admin({.host = "127.0.0.1",
                      .port = static_cast<std::uint16_t>(std::stoi((*port)[1])),
                      .reuse_connection = false});
    auto metrics = admin.send({.target = "/metrics"});
    if (!metrics.ok()) return "no answer: " + metrics.error().message();
    const auto m = metric_samples(metrics->body);
    const auto it = m.find("sumcache_cache_partial_invalid_total");
    return it == m.end() ? "absent" : it->second;
  }
};
INSTANTIATE_TEST_SUITE_P(Modes, DamagedPartial, kBothModes, mode_name);

TEST_P(DamagedPartial, IsRelayedCountedLoggedAndNotStored) {
  const struct {
    const char* name;
    const char* fields;  // URL-encoded response fields
  } cases[] = {
      {"last_past_complete", "Content-Range%3A%20bytes%200-4%2F3"},  // last >= complete
      {"first_after_last", "Content-Range%3A%20bytes%204-0%2F10"},
      {"length_differs", "Content-Range%3A%20bytes%200-7%2F10"},  // 5 bytes sent for 8
      {"missing", "X-None%3A%201"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = std::string("/obj/damaged_") + c.name;
    const std::string target = path + "?max_age=3600&status=206&size=5&etag=d1&fields=" + c.fields;
    for (int i = 0; i < 2; ++i) {
      const auto r = fetch(target, {{"Range", "bytes=0-4"}});
      EXPECT_EQ(r.status, 206U);
      EXPECT_EQ(header_or(r, "X-Cache"), "MISS");
      EXPECT_EQ(r.body, deterministic_body(path, "", 5));
    }
    EXPECT_EQ(origin_.log().count(path), 2U);  // never stored: both reached the origin
  }
  EXPECT_EQ(partial_invalid(), "8");
  EXPECT_NE(daemon_log().find("206 not stored for "), std::string::npos) << daemon_log();
}

// A 206 with a "*" complete length is valid (§14.4) but gives no whole to
// combine into: relayed, not stored, not counted as an error.
TEST_P(DamagedPartial, UnknownCompleteLengthIsNotStoredNorCounted) {
  const std::string path = "/obj/star";
  const std::string target =
      path + "?max_age=3600&status=206&size=5&etag=s1&fields=Content-Range%3A%20bytes%200-4%2F*";
  for (int i = 0; i < 2; ++i) {
    const auto r = fetch(target, {{"Range", "bytes=0-4"}});
    EXPECT_EQ(r.status, 206U);
    EXPECT_EQ(header_or(r, "X-Cache"), "MISS");
  }
  EXPECT_EQ(origin_.log().count(path), 2U);
  EXPECT_EQ(partial_invalid(), "0");
}

// A partial entry lives in this node alone: it is not in the summary its
// peers get, and a peer asking for it is not served from it (docs/caching.md).
class PartialAndPeers : public ClusterTest {};

TEST_F(PartialAndPeers, APartialEntryIsNeverServedToAPeer) {
  ASSERT_TRUE(start_cluster({.nodes = 2}));
  const std::string path = "/obj/peer_partial?max_age=3600&ranges=1&size=10&etag=q1";
  const auto stored = fetch(0, path, {{"Range", "bytes=0-4"}});
  ASSERT_EQ(stored.status, 206U);
  ASSERT_EQ(x_cache(fetch(0, path, {{"Range", "bytes=0-4"}})), "HIT");
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  // Node b's summary of node a does not claim the key: b goes to the origin.
  const auto at_b = fetch(1, path);
  EXPECT_EQ(at_b.status, 200U);
  EXPECT_EQ(x_cache(at_b), "MISS");
  EXPECT_EQ(origin_.log().count("/obj/peer_partial"), 2U);
  // A verified peer request for the stored range is not answered from it.
  const std::string url = origin_url(path);
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  HttpClient client({.host = "127.0.0.1",
                     .port = nodes_[0].http_port,
                     .timeout = 10s,
                     .reuse_connection = false});
  auto as_peer = client.send(
      {.method = "GET",
       .target = url,
       .headers = {{"Cache-Control", "only-if-cached"},
                   {"X-Sumcache-Peer", "node-b"},
                   {"Range", "bytes=0-4"},
                   {std::string(protocol::kPeerAuthHeader),
                    protocol::sign_peer_request("GET", url, "node-b", now, options_.secret)}},
       .body = {}});
  ASSERT_TRUE(as_peer.ok()) << as_peer.error().message();
  EXPECT_EQ(as_peer->status, 504U);
  EXPECT_EQ(origin_.log().count("/obj/peer_partial"), 2U);
}

}  // namespace
}  // namespace sumcache::testing
