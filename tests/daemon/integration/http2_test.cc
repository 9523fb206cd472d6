// HTTP/2 to clients (issue 28, docs/http2.md), seen by real clients only:
// curl (--http2-prior-knowledge on an h2c listener, --http2 by ALPN on a TLS
// one), h2load for many streams on one connection, and a Python script that
// writes the known attack patterns frame by frame (h2_attack.py).
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_pki.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kCurl = "/usr/bin/curl";
constexpr const char* kH2load = "/usr/bin/h2load";
// Debian's, which has python3-h2's hpack (not a virtualenv's).
constexpr const char* kPython = "/usr/bin/python3";

// The value of `name` in curl's dumped head (-D), "" when absent.
std::string field(const std::string& head, const std::string& name) {
  std::istringstream in(head);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > name.size() + 1 && line[name.size()] == ':' &&
        strncasecmp(line.c_str(), name.c_str(), name.size()) == 0) {
      std::string value = line.substr(name.size() + 1);
      while (!value.empty() && (value.front() == ' ')) value.erase(0, 1);
      while (!value.empty() && (value.back() == '\r' || value.back() == ' ')) value.pop_back();
      return value;
    }
  }
  return "";
}

struct CurlResult {
  int code = -1;
  std::string version;  // curl's %{http_version}: "2", "1.1"
  std::string status;
  std::string head;
  std::string body;
};

class Http2 : public ProxyTest {
 protected:
  // A reverse proxy in front of the test origin, its listener taking h2c,
  // with an admin listener for /metrics.
  bool start_h2c(const std::string& limits_json = "") {
    return start_proxy({.mode = "reverse",
                        .extra_json = limits_json,
                        .admin_json = R"({"address": "127.0.0.1", "port": 0})",
                        .listen_json = R"(, "h2c": true)"});
  }

  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }

  CurlResult curl(const std::vector<std::string>& options, const std::string& url) {
    const auto head = work_.path() / "curl_head.txt";
    const auto body = work_.path() / "curl_body.bin";
    std::vector<std::string> argv = {kCurl, "-sS",         "-D", head.string(),
                                     "-o",  body.string(), "-w", "%{http_version} %{http_code}"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(url);
    const Finished f = run_program(argv);
    CurlResult r;
    r.code = f.code;
    std::istringstream w(f.out);
    w >> r.version >> r.status;
    r.head = read_file(head);
    r.body = read_file(body);
    return r;
  }

  Finished attack(const std::string& mode, int count) {
    return run_program(
        {kPython, H2_ATTACK_SCRIPT, std::to_string(port_), mode, std::to_string(count)}, {}, 40s);
  }
};

TEST_F(Http2, PriorKnowledgeMissThenHitCarryTheSameBytesAsHttp11) {
  ASSERT_TRUE(start_h2c());
  const std::string path = "/obj/h2-same?size=70000&max_age=600";
  const CurlResult miss = curl({"--http2-prior-knowledge"}, base() + path);
  ASSERT_EQ(miss.code, 0);
  EXPECT_EQ(miss.version, "2");
  EXPECT_EQ(miss.status, "200");
  EXPECT_EQ(field(miss.head, "x-cache"), "MISS");
  const CurlResult hit = curl({"--http2-prior-knowledge"}, base() + path);
  EXPECT_EQ(hit.version, "2");
  EXPECT_EQ(field(hit.head, "x-cache"), "HIT");
  // The same listener still speaks HTTP/1.1 to a client that does not open with the preface.
  const CurlResult h1 = curl({"--http1.1"}, base() + path);
  EXPECT_EQ(h1.version, "1.1");
  EXPECT_EQ(field(h1.head, "x-cache"), "HIT");
  EXPECT_EQ(miss.body, h1.body);
  EXPECT_EQ(hit.body, h1.body);
  EXPECT_EQ(hit.body.size(), 70000U);
  // No connection-specific field crosses into HTTP/2 (RFC 9113 §8.2.2).
  EXPECT_EQ(field(hit.head, "connection"), "");
  EXPECT_EQ(field(miss.head, "transfer-encoding"), "");
  EXPECT_EQ(origin_.log().count("/obj/h2-same"), 1U);
}

TEST_F(Http2, ALargeBodyARangeAHeadAndAPostGoThroughTheSameFlows) {
  ASSERT_TRUE(start_h2c());
  const std::string large = "/obj/h2-large?size=4000000&max_age=600";
  const CurlResult big = curl({"--http2-prior-knowledge"}, base() + large);
  ASSERT_EQ(big.status, "200");
  const CurlResult big1 = curl({"--http1.1"}, base() + large);
  EXPECT_EQ(big.body.size(), 4000000U);
  EXPECT_EQ(big.body, big1.body);

  const CurlResult range =
      curl({"--http2-prior-knowledge", "-H", "Range: bytes=10-19"}, base() + large);
  EXPECT_EQ(range.status, "206");
  EXPECT_EQ(range.body, big1.body.substr(10, 10));

  const CurlResult head = curl({"--http2-prior-knowledge", "-I"}, base() + large);
  EXPECT_EQ(head.status, "200");
  EXPECT_EQ(field(head.head, "content-length"), "4000000");

  const std::string payload(200000, 'p');
  const auto file = work_.path() / "post.bin";
  std::ofstream(file, std::ios::binary) << payload;
  const CurlResult post =
      curl({"--http2-prior-knowledge", "--data-binary", "@" + file.string()}, base() + "/echo");
  ASSERT_EQ(post.status, "200");
  const auto echoed = nlohmann::json::parse(post.body, nullptr, false);
  ASSERT_TRUE(echoed.is_object()) << post.body.substr(0, 200);
  EXPECT_EQ(echoed["method"], "POST");
  EXPECT_EQ(echoed["body_length"], payload.size());
  // RFC 9110 §7.6.3: the Via member names the protocol the request came in with.
  std::string via;
  for (const auto& h : echoed["headers"]) {
    if (h[0] == "Via") via = h[1];
  }
  EXPECT_EQ(via, "2 test-node");
}

// RFC 9113 §8.3.1: a Host line naming another authority than :authority
// would let the key and the forwarded Host differ (issue 27's poisoning).
TEST_F(Http2, AHostThatDisagreesWithTheAuthorityIsRefused) {
  ASSERT_TRUE(start_h2c());
  EXPECT_EQ(attack("host_mismatch", 1).out, "status 400\n");
  EXPECT_EQ(origin_.log().count("/obj/h2-attack"), 0U);
}

TEST_F(Http2, ALPNChoosesH2OnATlsListenerUnlessHttp2IsOff) {
  const TestPki pki = make_test_pki(work_.path());
  const std::string tls =
      R"({"certificates": [{"cert_file": "server.pem", "key_file": "server.key"}]})";
  ASSERT_TRUE(start_proxy({.mode = "reverse",
                           .admin_json = R"({"address": "127.0.0.1", "port": 0})",
                           .listen_tls_json = tls}));
  const std::string url =
      "https://localhost:" + std::to_string(port_) + "/obj/h2-tls?size=30000&max_age=600";
  const CurlResult h2 = curl({"--http2", "--cacert", pki.ca_cert.string()}, url);
  ASSERT_EQ(h2.code, 0);
  EXPECT_EQ(h2.version, "2");
  EXPECT_EQ(h2.body.size(), 30000U);
  stop_proxy();
  ASSERT_TRUE(start_proxy({.mode = "reverse",
                           .admin_json = R"({"address": "127.0.0.1", "port": 0})",
                           .listen_tls_json = tls,
                           .listen_json = R"(, "http2": false)"}));
  const std::string url1 =
      "https://localhost:" + std::to_string(port_) + "/obj/h2-tls?size=30000&max_age=600";
  const CurlResult h1 = curl({"--http2", "--cacert", pki.ca_cert.string()}, url1);
  ASSERT_EQ(h1.code, 0);
  EXPECT_EQ(h1.version, "1.1");
  EXPECT_EQ(h1.body, h2.body);
}

TEST_F(Http2, AHundredStreamsOnOneConnectionAllSucceed) {
  ASSERT_TRUE(start_h2c());
  ASSERT_EQ(curl({"--http2-prior-knowledge"}, base() + "/obj/h2-load?size=1024&max_age=600").status,
            "200");
  const Finished f = run_program(
      {kH2load, "-n", "500", "-c", "1", "-m", "100", base() + "/obj/h2-load?size=1024&max_age=600"},
      {}, 60s);
  ASSERT_EQ(f.code, 0) << f.out << f.err;
  EXPECT_NE(f.out.find("500 succeeded, 0 failed, 0 errored"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("status codes: 500 2xx"), std::string::npos) << f.out;
}

TEST_F(Http2, AClientResetMidStreamLeavesTheConnectionServing) {
  ASSERT_TRUE(start_h2c());
  EXPECT_EQ(attack("reset_mid_stream", 1).out, "status 200\n");
}

// The stream past SETTINGS_MAX_CONCURRENT_STREAMS is refused (REFUSED_STREAM, 7),
// the ones before it stay open.
TEST_F(Http2, AStreamPastTheConcurrentLimitIsRefused) {
  ASSERT_TRUE(start_h2c(R"("limits": {"http2_max_concurrent_streams": 16},)"));
  EXPECT_EQ(attack("too_many_streams", 17).out, "rst 33 7\n");
}

// Each pattern against its limit: GOAWAY with ENHANCE_YOUR_CALM (0xb), a
// count in /metrics, and the node still serves the next client.
// The node's resident memory, from /proc.
std::uint64_t resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) return std::stoull(line.substr(6));
  }
  return 0;
}

TEST_F(Http2, RapidResetGetsGoawayAndIsCounted) {
  ASSERT_TRUE(start_h2c(R"("limits": {"http2_max_resets_per_second": 50},)"));
  const Finished f = attack("rapid_reset", 500);
  EXPECT_EQ(f.out, "goaway 11\n") << f.err;
  EXPECT_EQ(metric_value(R"(sumcache_http2_goaways_total{reason="rapid_reset"})", "1"), "1");
  EXPECT_EQ(curl({"--http2-prior-knowledge"}, base() + "/obj/h2-after?size=10").status, "200");
}

// Ten more rounds of it: every one ends in GOAWAY, a client on another
// connection is served meanwhile, and the node's memory stays flat (ASan's
// own overhead included, the bound is loose: a leak per reset would pass it).
TEST_F(Http2, RepeatedRapidResetsLeaveMemoryFlatAndOtherClientsServed) {
  ASSERT_TRUE(start_h2c(R"("limits": {"http2_max_resets_per_second": 50},)"));
  ASSERT_EQ(attack("rapid_reset", 500).out, "goaway 11\n");
  const std::uint64_t before = resident_kib(daemon_->pid());
  for (int round = 0; round < 10; ++round) {
    EXPECT_EQ(attack("rapid_reset", 2000).out, "goaway 11\n");
    EXPECT_EQ(
        curl({"--http2-prior-knowledge"}, base() + "/obj/h2-during?size=100&max_age=600").status,
        "200");
  }
  const std::uint64_t after = resident_kib(daemon_->pid());
  EXPECT_GT(before, 0U);
  EXPECT_LT(after, before + 32 * 1024) << before << " KiB before, " << after << " KiB after";
}

TEST_F(Http2, SettingsPingAndPriorityFloodsGetGoaway) {
  ASSERT_TRUE(start_h2c(R"("limits": {"http2_max_control_frames_per_second": 50},)"));
  EXPECT_EQ(attack("settings_flood", 1000).out, "goaway 11\n");
  EXPECT_EQ(attack("ping_flood", 1000).out, "goaway 11\n");
  EXPECT_EQ(attack("priority_flood", 1000).out, "goaway 11\n");
  EXPECT_EQ(metric_value(R"(sumcache_http2_goaways_total{reason="control_flood"})", "3"), "3");
  EXPECT_EQ(curl({"--http2-prior-knowledge"}, base() + "/obj/h2-after?size=10").status, "200");
}

TEST_F(Http2, AContinuationFloodGetsGoaway) {
  ASSERT_TRUE(start_h2c(R"("limits": {"http2_max_continuations": 8},)"));
  const Finished f = attack("continuation_flood", 10000);
  EXPECT_EQ(f.out, "goaway 11\n") << f.err;
  EXPECT_EQ(metric_value(R"(sumcache_http2_goaways_total{reason="continuation_flood"})", "1"), "1");
}

TEST_F(Http2, HeadersPastTheLimitResetTheStreamOnly) {
  ASSERT_TRUE(start_h2c(R"("limits": {"max_header_bytes": "16KiB"},)"));
  // 40 fields of 1000 bytes, across CONTINUATION frames: past 16 KiB decoded.
  const Finished f = attack("big_headers", 40);
  EXPECT_EQ(f.out.substr(0, 6), "rst 1 ") << f.out << f.err;
  EXPECT_EQ(metric_value(R"(sumcache_http2_stream_resets_total{reason="header_too_large"})", "1"),
            "1");
}

TEST_F(Http2, AStreamWhoseWindowNeverOpensIsResetAtTheWriteTimeout) {
  ASSERT_TRUE(start_h2c(R"("limits": {"upstream_io_timeout_ms": 1000},)"));
  const Finished f = attack("stall", 1);
  EXPECT_EQ(f.out.substr(0, 6), "rst 1 ") << f.out << f.err;
  EXPECT_EQ(metric_value(R"(sumcache_http2_stream_resets_total{reason="stalled"})", "1"), "1");
}

TEST_F(Http2, AnIdleConnectionGetsGoawayAfterTheIdleTimeout) {
  ASSERT_TRUE(start_h2c(R"("limits": {"client_idle_timeout_ms": 500},)"));
  // No stream at all: the preface and SETTINGS, then silence.
  const Finished f = attack("settings_flood", 0);
  EXPECT_EQ(f.out, "goaway 0\n") << f.err;
  EXPECT_EQ(metric_value(R"(sumcache_http2_goaways_total{reason="idle"})", "1"), "1");
}

}  // namespace
}  // namespace sumcache::testing
