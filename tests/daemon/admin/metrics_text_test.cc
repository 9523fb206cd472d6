#include "daemon/admin/metrics_text.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "daemon/admin/prometheus_writer.h"
#include "tests/daemon/admin/promtool.h"
#include "tests/daemon/admin/metric_samples.h"

namespace sumcache::daemon {
namespace {

using sumcache::testing::metric_samples;

TEST(PrometheusText, LabelValuesEscapeBackslashQuoteAndNewline) {
  EXPECT_EQ(escape_label_value(R"(a\b"c)"
                               "\nd"),
            R"(a\\b\"c\nd)");
  EXPECT_EQ(escape_label_value("plain-id_1.2"), "plain-id_1.2");
}

TEST(PrometheusText, HelpEscapesBackslashAndNewlineButNotQuotes) {
  EXPECT_EQ(escape_help("say \"hi\"\\now\nthen"), R"(say "hi"\\now\nthen)");
}

TEST(PrometheusText, ValuesUseShortestRoundTripAndPrometheusSpecialNames) {
  EXPECT_EQ(format_sample_value(0.25), "0.25");
  EXPECT_EQ(format_sample_value(3.0), "3");
  EXPECT_EQ(format_sample_value(1e-7), "1e-07");
  EXPECT_EQ(format_sample_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_sample_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_sample_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(PrometheusText, AFamilyIsHelpTypeThenSamples) {
  PrometheusWriter w;
  w.family("x_total", "counter", "Things.\nMore");
  w.sample("x_total", {{"peer", "a\"b"}, {"dir", "in"}}, std::uint64_t{3});
  w.sample("x_total", {}, 0.5);
  EXPECT_EQ(w.text(),
            "# HELP x_total Things.\\nMore\n"
            "# TYPE x_total counter\n"
            "x_total{peer=\"a\\\"b\",dir=\"in\"} 3\n"
            "x_total 0.5\n");
}

StatsSnapshot sample_snapshot() {
  StatsSnapshot s;
  s.version = "0.1.0";
  s.node_id = "node-1";
  s.uptime_seconds = 12.5;
  s.requests = 3;
  s.results[static_cast<std::size_t>(CacheResult::miss)] = 2;
  s.results[static_cast<std::size_t>(CacheResult::hit)] = 1;
  s.statuses = {{200, 2}, {404, 1}};
  s.ratios = {RatioFigures{"1m", {{3, 1, 0, 300, 100, 0}, 12}},
              RatioFigures{"5m", {{3, 1, 0, 300, 100, 0}, 12}},
              RatioFigures{"since_start", {{3, 1, 0, 300, 100, 0}, 12}}};
  LatencyHistogram h;
  h.record(50);
  h.record(3000);
  s.latency[0] = h.snapshot();
  s.filter = {false, 1024, 4, 10, 40, 0, 0, 3, 512};
  PeerStatus odd;
  odd.id = "peer \"b\"\\\nx";  // ids are checked at config load; escaping still must hold
  odd.state = PeerState::suspect;
  odd.requests_sent = 5;
  odd.false_hits = 1;
  odd.rtt_ms = 1.5;
  PeerStatus plain;
  plain.id = "peer-a";
  plain.state = PeerState::up;
  s.peers = {plain, odd};
  return s;
}

TEST(MetricsText, EveryFamilyHasOneHelpAndOneTypeBeforeItsSamples) {
  const std::string text = metrics_text(sample_snapshot());
  std::set<std::string> help, type;
  std::istringstream in(text);
  std::string line;
  std::string current;
  while (std::getline(in, line)) {
    if (line.starts_with("# HELP ")) {
      const std::string name = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(help.insert(name).second) << "two HELP lines for " << name;
      current = name;
    } else if (line.starts_with("# TYPE ")) {
      const std::string name = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(type.insert(name).second) << "two TYPE lines for " << name;
      EXPECT_EQ(name, current);
    } else {
      const std::string name = line.substr(0, line.find_first_of("{ "));
      EXPECT_TRUE(name == current || name == current + "_bucket" || name == current + "_sum" ||
                  name == current + "_count")
          << line << " outside its family " << current;
    }
  }
  EXPECT_EQ(help, type);
  EXPECT_TRUE(help.contains("sumcache_requests_total"));
  EXPECT_TRUE(help.contains("sumcache_request_duration_seconds"));
  EXPECT_TRUE(help.contains("sumcache_filter_fill_ratio"));
  EXPECT_TRUE(help.contains("sumcache_peer_false_hits_total"));
  EXPECT_TRUE(help.contains("sumcache_store_objects"));
}

TEST(MetricsText, FiguresAppearWithConventionalLabels) {
  const auto samples = metric_samples(metrics_text(sample_snapshot()));
  EXPECT_EQ(samples.at(R"(sumcache_requests_total{result="miss"})"), "2");
  EXPECT_EQ(samples.at(R"(sumcache_requests_total{result="hit"})"), "1");
  EXPECT_EQ(samples.at(R"(sumcache_requests_total{result="refresh_hit"})"), "0");
  EXPECT_EQ(samples.at(R"(sumcache_responses_total{code="404"})"), "1");
  EXPECT_EQ(samples.at(R"(sumcache_hit_ratio{window="1m",kind="hit"})"),
            format_sample_value(1.0 / 3));
  EXPECT_EQ(samples.at(R"(sumcache_filter_fill_ratio)"), format_sample_value(40.0 / 1024));
  EXPECT_EQ(samples.at(R"(sumcache_peer_state{peer="peer-a",state="up"})"), "1");
  EXPECT_EQ(samples.at(R"(sumcache_peer_state{peer="peer-a",state="down"})"), "0");
  EXPECT_EQ(samples.at(R"(sumcache_peer_requests_total{peer="peer \"b\"\\\nx"})"), "5");
  EXPECT_EQ(samples.at(R"(sumcache_peer_rtt_seconds{peer="peer \"b\"\\\nx"})"), "0.0015");
}

// A Squid peer's digest fetches, by result (docs/interop.md); only for squid-digest peers.
TEST(MetricsText, SquidDigestFetchesAppearPerPeerAndResult) {
  StatsSnapshot s = sample_snapshot();
  PeerStatus squid;
  squid.id = "squid-1";
  squid.protocol = "squid-digest";
  squid.squid_digest = SquidDigestStatus{};
  squid.squid_digest->fetches_ok = 7;
  squid.squid_digest->refused = 2;
  s.peers.push_back(squid);
  const auto samples = metric_samples(metrics_text(s));
  const std::string name = "sumcache_peer_squid_digest_fetches_total";
  EXPECT_EQ(samples.at(name + R"({peer="squid-1",result="ok"})"), "7");
  EXPECT_EQ(samples.at(name + R"({peer="squid-1",result="not_modified"})"), "0");
  EXPECT_EQ(samples.at(name + R"({peer="squid-1",result="refused"})"), "2");
  EXPECT_EQ(samples.at(name + R"({peer="squid-1",result="error"})"), "0");
  EXPECT_FALSE(samples.contains(name + R"({peer="peer-a",result="ok"})"));
}

// The Squid digest's families appear only when it is enabled (docs/interop.md).
TEST(MetricsText, SquidDigestFiguresAppearWhenEnabled) {
  StatsSnapshot s = sample_snapshot();
  EXPECT_EQ(metric_samples(metrics_text(s)).count("sumcache_squid_digest_builds_total"), 0u);
  SquidDigestStats d;
  d.builds = 3;
  d.requested = 2;
  d.overruns = 1;
  d.served = 4;
  d.not_modified = 2;
  d.refused = 1;
  d.unavailable = 5;
  d.last_build_seconds = 0.25;
  d.build_seconds_total = 0.75;
  d.entries = 10;
  d.capacity = 64;
  d.bytes = 168;
  d.used_percent = 30;
  d.last_modified = 1700000000;
  d.expires = 1700000060;
  s.squid_digest = d;
  const auto samples = metric_samples(metrics_text(s));
  EXPECT_EQ(samples.at("sumcache_squid_digest_builds_total"), "3");
  EXPECT_EQ(samples.at("sumcache_squid_digest_rebuilds_requested_total"), "2");
  EXPECT_EQ(samples.at("sumcache_squid_digest_build_overruns_total"), "1");
  EXPECT_EQ(samples.at("sumcache_squid_digest_build_seconds_total"), "0.75");
  EXPECT_EQ(samples.at("sumcache_squid_digest_last_build_seconds"), "0.25");
  EXPECT_EQ(samples.at(R"(sumcache_squid_digest_requests_total{status="200"})"), "4");
  EXPECT_EQ(samples.at(R"(sumcache_squid_digest_requests_total{status="304"})"), "2");
  EXPECT_EQ(samples.at(R"(sumcache_squid_digest_requests_total{status="405"})"), "1");
  EXPECT_EQ(samples.at(R"(sumcache_squid_digest_requests_total{status="503"})"), "5");
  EXPECT_EQ(samples.at("sumcache_squid_digest_entries"), "10");
  EXPECT_EQ(samples.at("sumcache_squid_digest_capacity"), "64");
  EXPECT_EQ(samples.at("sumcache_squid_digest_bytes"), "168");
  EXPECT_EQ(samples.at("sumcache_squid_digest_used_ratio"), "0.3");
  EXPECT_EQ(samples.at("sumcache_squid_digest_expires_seconds"), "1700000060");
}

TEST(MetricsText, AcceptFailuresAppearPerListenerAndReason) {
  StatsSnapshot s = sample_snapshot();
  s.proxy_accept_failures = {7, 1, 0};
  s.peer_listener_accept_failures = {3, 0, 2};
  s.peer_encode_failures = 4;
  const auto samples = metric_samples(metrics_text(s));
  EXPECT_EQ(samples.at(R"(sumcache_accept_failures_total{listener="proxy",reason="resources"})"),
            "7");
  EXPECT_EQ(samples.at(R"(sumcache_accept_failures_total{listener="proxy",reason="connection"})"),
            "1");
  EXPECT_EQ(samples.at(R"(sumcache_accept_failures_total{listener="peer",reason="other"})"), "2");
  EXPECT_EQ(samples.at(R"(sumcache_accept_failures_total{listener="admin",reason="resources"})"),
            "0");
  EXPECT_EQ(
      samples.at(R"(sumcache_accept_failures_total{listener="peer_objects",reason="resources"})"),
      "0");
  EXPECT_EQ(samples.at("sumcache_peer_encode_failures_total"), "4");
}

// docs/icp.md, "Counters": a Squid stops asking a node that answers it DENIED, so
// the denials this node sends (and receives) must show.
TEST(MetricsText, IcpQueriesAndRepliesAppearByDirectionAndOpcode) {
  StatsSnapshot s = sample_snapshot();
  EXPECT_EQ(metrics_text(s).find("sumcache_icp_"), std::string::npos);  // not in icp mode
  IcpPeerCounters icp;
  icp.queries_sent = 9;
  icp.queries_received = 7;
  icp.hits_sent = 2;
  icp.misses_sent = 4;
  icp.denied_sent = 1;
  icp.denied_received = 3;
  icp.unanswered = 5;
  s.icp = icp;
  const std::string text = metrics_text(s);
  const auto samples = metric_samples(text);
  EXPECT_EQ(samples.at(R"(sumcache_icp_queries_total{direction="sent"})"), "9");
  EXPECT_EQ(samples.at(R"(sumcache_icp_queries_total{direction="received"})"), "7");
  EXPECT_EQ(samples.at(R"(sumcache_icp_replies_total{direction="sent",opcode="hit"})"), "2");
  EXPECT_EQ(samples.at(R"(sumcache_icp_replies_total{direction="sent",opcode="miss"})"), "4");
  EXPECT_EQ(samples.at(R"(sumcache_icp_replies_total{direction="sent",opcode="denied"})"), "1");
  EXPECT_EQ(samples.at(R"(sumcache_icp_replies_total{direction="received",opcode="denied"})"), "3");
  EXPECT_EQ(samples.at("sumcache_icp_unanswered_total"), "5");
  const auto check = testing::promtool_check(text);
  EXPECT_TRUE(check.passed) << check.output;
}

TEST(MetricsText, HistogramBucketsAreCumulativeAndEndAtTheCount) {
  const auto samples = metric_samples(metrics_text(sample_snapshot()));
  EXPECT_EQ(samples.at(R"(sumcache_request_duration_seconds_bucket{result="hit",le="0.000032"})"),
            "0");
  EXPECT_EQ(samples.at(R"(sumcache_request_duration_seconds_bucket{result="hit",le="0.000064"})"),
            "1");
  EXPECT_EQ(samples.at(R"(sumcache_request_duration_seconds_bucket{result="hit",le="0.004096"})"),
            "2");
  EXPECT_EQ(samples.at(R"(sumcache_request_duration_seconds_bucket{result="hit",le="+Inf"})"), "2");
  EXPECT_EQ(samples.at(R"(sumcache_request_duration_seconds_count{result="hit"})"), "2");
  EXPECT_EQ(samples.at(R"(sumcache_request_duration_seconds_sum{result="hit"})"), "0.00305");
  EXPECT_EQ(samples.at(R"(sumcache_request_duration_seconds_count{result="miss"})"), "0");
}

// docs/peers.md, "Redis transport": the names bench/cluster reads.
TEST(MetricsText, RedisTransportFiguresAppearPerServerDirectionKindAndReason) {
  StatsSnapshot s = sample_snapshot();
  RedisBusStats r;
  r.servers = {{"127.0.0.1:6379", true, 3, 1, 40, 1000, 2000},
               {"[::1]:6380", false, 0, 5, 0, 0, 0}};
  r.members = 3;
  r.published_full = 2;
  r.published_delta = 9;
  r.read_full = 4;
  r.read_delta = 17;
  r.refused[static_cast<std::size_t>(RedisRefusal::message_bad_tag)] = 6;
  r.resyncs = 1;
  r.outages = 12;
  s.redis = r;
  const std::string text = metrics_text(s);
  const auto samples = metric_samples(text);
  EXPECT_EQ(samples.at(R"(sumcache_redis_up{server="127.0.0.1:6379"})"), "1");
  EXPECT_EQ(samples.at(R"(sumcache_redis_up{server="[::1]:6380"})"), "0");
  EXPECT_EQ(samples.at(R"(sumcache_redis_connects_total{server="127.0.0.1:6379",result="ok"})"),
            "3");
  EXPECT_EQ(samples.at(R"(sumcache_redis_connects_total{server="[::1]:6380",result="failed"})"),
            "5");
  EXPECT_EQ(samples.at(R"(sumcache_redis_commands_total{server="127.0.0.1:6379"})"), "40");
  EXPECT_EQ(samples.at(R"(sumcache_redis_bytes_total{server="127.0.0.1:6379",direction="sent"})"),
            "1000");
  EXPECT_EQ(
      samples.at(R"(sumcache_redis_bytes_total{server="127.0.0.1:6379",direction="received"})"),
      "2000");
  EXPECT_EQ(samples.at(R"(sumcache_redis_messages_total{direction="published",kind="delta"})"),
            "9");
  EXPECT_EQ(samples.at(R"(sumcache_redis_messages_total{direction="read",kind="full"})"), "4");
  EXPECT_EQ(samples.at(R"(sumcache_redis_messages_refused_total{reason="message_bad_tag"})"), "6");
  EXPECT_EQ(samples.at(R"(sumcache_redis_messages_refused_total{reason="member_bad_tag"})"), "0");
  EXPECT_EQ(samples.at("sumcache_redis_resyncs_total"), "1");
  EXPECT_EQ(samples.at("sumcache_redis_outages_total"), "12");
  EXPECT_EQ(samples.at("sumcache_redis_members"), "3");
  const auto check = testing::promtool_check(text);
  EXPECT_TRUE(check.passed) << check.output;
  // With transport mesh there are none.
  EXPECT_EQ(metrics_text(sample_snapshot()).find("sumcache_redis_"), std::string::npos);
}

TEST(MetricsText, PassesPromtoolWithPeersAndOddLabelValues) {
  const auto check = testing::promtool_check(metrics_text(sample_snapshot()));
  EXPECT_TRUE(check.passed) << check.output;
}

}  // namespace
}  // namespace sumcache::daemon
