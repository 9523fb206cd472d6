// Proxying through a real sumcached: forward and reverse mode, headers on the
// way, CONNECT, interim responses, pipelining, access control, loops.
#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/raw_client.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_pki.h"

namespace sumcache::testing {
namespace {

std::string header_or(const ClientResponse& r, std::string_view name) {
  return r.header(name).value_or("<none>");
}

TEST_F(ProxyTest, ForwardProxyStripsHopByHopAndAddsVia) {  // RFC 9110 §7.6
  ASSERT_TRUE(start_proxy());
  const auto r = fetch("/echo", {{"Connection", "X-Secret"}, {"X-Secret", "1"}, {"X-Kept", "2"}});
  ASSERT_EQ(r.status, 200U);
  const auto log = origin_.log().entries();
  ASSERT_EQ(log.size(), 1U);
  EXPECT_FALSE(find_header(log[0].headers, "X-Secret"));
  EXPECT_EQ(find_header(log[0].headers, "X-Kept").value_or(""), "2");
  EXPECT_EQ(find_header(log[0].headers, "Via").value_or(""), "1.1 test-node");
  EXPECT_EQ(log[0].target, "/echo");  // absolute-form became origin-form
  EXPECT_EQ(header_or(r, "Via"), "1.1 test-node");
}

TEST_F(ProxyTest, ReverseProxyAddsXForwardedForAndKeepsHost) {
  ASSERT_TRUE(start_proxy({.mode = "reverse"}));
  fetch("/echo", {{"Host", "www.example.test"}});
  const auto log = origin_.log().entries();
  ASSERT_EQ(log.size(), 1U);
  EXPECT_EQ(find_header(log[0].headers, "X-Forwarded-For").value_or(""), "127.0.0.1");
  EXPECT_EQ(find_header(log[0].headers, "Host").value_or(""), "www.example.test");
  const auto cached = fetch("/obj/x?max_age=60", {{"Host", "www.example.test"}});
  EXPECT_EQ(header_or(fetch("/obj/x?max_age=60", {{"Host", "www.example.test"}}), "X-Cache"),
            "HIT");
  EXPECT_EQ(cached.status, 200U);
}

TEST_F(ProxyTest, HttpsOriginIsVerifiedAgainstTheConfiguredCa) {
  TempDir pki_dir;
  const TestPki pki = make_test_pki(pki_dir.path());
  TestOrigin https_origin({.tls = TlsFiles{pki.server_cert, pki.server_key}});
  ASSERT_FALSE(https_origin.start());
  const std::string url = "https://127.0.0.1:" + std::to_string(https_origin.port());
  ASSERT_TRUE(start_proxy({.mode = "reverse",
                           .origin_url = url,
                           .reverse_tls_json = R"({"ca_file": ")" + pki.ca_cert.string() +
                                               R"(", "server_name": "localhost"})"}));
  const auto first = fetch("/obj/tls?max_age=60&size=100");
  EXPECT_EQ(first.status, 200U);
  EXPECT_EQ(first.body.size(), 100U);
  EXPECT_EQ(fetch("/obj/tls?max_age=60&size=100").header("X-Cache").value_or(""), "HIT");
  EXPECT_EQ(https_origin.log().count("/obj/tls"), 1U);
}

TEST_F(ProxyTest, HttpsOriginWithAnUntrustedCertificateIs502) {
  TempDir pki_dir;
  const TestPki pki = make_test_pki(pki_dir.path());
  TestOrigin https_origin({.tls = TlsFiles{pki.server_cert, pki.server_key}});
  ASSERT_FALSE(https_origin.start());
  // Verification is on by default and the system store does not know the test CA.
  ASSERT_TRUE(start_proxy(
      {.mode = "reverse", .origin_url = "https://127.0.0.1:" + std::to_string(https_origin.port())}));
  const auto r = fetch("/obj/tls?size=10");
  EXPECT_EQ(r.status, 502U);
  EXPECT_EQ(https_origin.log().count("/obj/tls"), 0U);
}

TEST_F(ProxyTest, ExtensionMethodsAndBodiesAreForwarded) {  // RFC 9110 §9.1
  ASSERT_TRUE(start_proxy());
  const std::string body(200000, 'b');
  const auto r = fetch("/echo", {}, "PROPFIND", body);
  EXPECT_EQ(r.status, 200U);
  const auto log = origin_.log().entries();
  ASSERT_EQ(log.size(), 1U);
  EXPECT_EQ(log[0].method, "PROPFIND");
  EXPECT_EQ(log[0].body_bytes, body.size());
}

TEST_F(ProxyTest, ChunkedRequestBodyIsStreamedUpstream) {
  ASSERT_TRUE(start_proxy());
  const auto r = fetch("/echo", {{"Transfer-Encoding", "chunked"}}, "POST", "hello chunks");
  EXPECT_EQ(r.status, 200U);
  const auto log = origin_.log().entries();
  ASSERT_EQ(log.size(), 1U);
  EXPECT_EQ(log[0].body_bytes, 12U);
}

TEST_F(ProxyTest, ExpectContinueAndEarlyHintsAreRelayed) {  // RFC 9110 §10.1.1, §15.2
  ASSERT_TRUE(start_proxy());
  const auto cont = fetch("/100-continue", {{"Expect", "100-continue"}}, "POST", "body");
  EXPECT_EQ(cont.status, 200U);
  ASSERT_FALSE(cont.interim.empty());
  EXPECT_EQ(cont.interim[0].status, 100U);
  const auto hints = fetch("/early-hints");
  EXPECT_EQ(hints.status, 200U);
  ASSERT_FALSE(hints.interim.empty());
  EXPECT_EQ(hints.interim[0].status, 103U);
}

TEST_F(ProxyTest, PipelinedRequestsAreAnsweredInOrder) {  // RFC 9112 §9.3.2
  ASSERT_TRUE(start_proxy());
  std::string requests;
  for (const char* path : {"/obj/p1?size=10", "/obj/p2?size=20", "/obj/p3?size=30"}) {
    requests += "GET " + origin_url(path) + " HTTP/1.1\r\nHost: x\r\n\r\n";
  }
  requests += "GET " + origin_url("/obj/p4?size=40") + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  auto reply = raw_exchange("127.0.0.1", port_, requests, std::chrono::seconds(10));
  ASSERT_TRUE(reply.ok());
  const auto responses = parse_responses(reply->data);
  ASSERT_EQ(responses.size(), 4U);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(responses[i].body.size(), 10 * (i + 1));
}

TEST_F(ProxyTest, BadRequestsGet4xxAndOtherConnectionsKeepWorking) {  // RFC 9112 §6.3
  ASSERT_TRUE(start_proxy({.extra_json = R"("limits": {"max_header_bytes": 4096},)"}));
  const std::string target = origin_url("/echo");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"garbage", "\x01\x02 not http\r\n\r\n"},
      {"oversized head", "GET " + target + " HTTP/1.1\r\nHost: x\r\nX-Big: " +
                             std::string(8000, 'a') + "\r\n\r\n"},
      {"length and chunked", "POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                             "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"},
      {"bad chunk size", "POST " + target + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
                         "\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"},
      {"origin-form to a forward proxy", "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n"},
  };
  const std::map<std::string, unsigned> expected = {
      {"garbage", 400}, {"oversized head", 431}, {"length and chunked", 400},
      {"bad chunk size", 400}, {"origin-form to a forward proxy", 400}};
  for (const auto& [name, bytes] : cases) {
    auto reply = raw_exchange("127.0.0.1", port_, bytes, std::chrono::seconds(5));
    ASSERT_TRUE(reply.ok()) << name;
    const auto responses = parse_responses(reply->data);
    ASSERT_FALSE(responses.empty()) << name << ": " << reply->data;
    EXPECT_EQ(responses[0].status, expected.at(name)) << name << ": " << responses[0].body;
    EXPECT_EQ(fetch("/obj/ok?size=5").status, 200U) << "after " << name;
  }
}

TEST_F(ProxyTest, LimitsAnswerWithTheirStatusAndReason) {
  ASSERT_TRUE(start_proxy({.extra_json = R"("limits": {"max_body_bytes": 1024,
      "upstream_first_byte_timeout_ms": 300, "client_request_timeout_ms": 500},)"}));
  const auto too_big = fetch("/echo", {}, "POST", std::string(5000, 'x'));
  EXPECT_EQ(too_big.status, 413U);
  EXPECT_NE(too_big.body.find("max_body_bytes"), std::string::npos) << too_big.body;
  EXPECT_EQ(origin_.log().count("/echo"), 0U);
  const auto slow = fetch("/obj/slow?delay_ms=3000");
  EXPECT_EQ(slow.status, 504U);
  // A head that never ends: 408 once client_request_timeout_ms has passed.
  auto stalled = raw_exchange("127.0.0.1", port_, "GET " + origin_url("/obj/a") + " HTTP/1.1\r\n",
                              std::chrono::seconds(5));
  ASSERT_TRUE(stalled.ok());
  const auto responses = parse_responses(stalled->data);
  ASSERT_FALSE(responses.empty()) << stalled->data;
  EXPECT_EQ(responses[0].status, 408U);
}

TEST_F(ProxyTest, ConnectTunnelsToAllowedPortsOnly) {  // RFC 9110 §9.3.6
  ASSERT_TRUE(start_proxy({.extra_json = R"("forward": {"connect_ports": [)" +
                                         std::to_string(origin_.port()) + "]},"}));
  const std::string authority = "127.0.0.1:" + std::to_string(origin_.port());
  const std::string tunnel = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority +
                             "\r\n\r\nGET /obj/t?size=7 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  auto reply = raw_exchange("127.0.0.1", port_, tunnel, std::chrono::seconds(10));
  ASSERT_TRUE(reply.ok());
  // A 200 to CONNECT has no body (RFC 9110 §9.3.6): the tunnel's bytes follow its head.
  const auto head_end = reply->data.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos) << reply->data;
  EXPECT_EQ(reply->data.rfind("HTTP/1.1 200", 0), 0U) << reply->data;
  const auto responses = parse_responses(std::string_view(reply->data).substr(head_end + 4));
  ASSERT_EQ(responses.size(), 1U) << reply->data;
  EXPECT_EQ(responses[0].status, 200U);
  EXPECT_EQ(responses[0].body.size(), 7U);
  auto refused = raw_exchange("127.0.0.1", port_, "CONNECT 127.0.0.1:25 HTTP/1.1\r\nHost: x\r\n\r\n",
                              std::chrono::seconds(5));
  ASSERT_TRUE(refused.ok());
  const auto denied = parse_responses(refused->data);
  ASSERT_FALSE(denied.empty());
  EXPECT_EQ(denied[0].status, 403U);
}

TEST_F(ProxyTest, ClientsOutsideTheAllowListGet403) {
  ASSERT_TRUE(start_proxy({.extra_json = R"("access": {"allow_clients": ["10.0.0.0/8"]},)"}));
  const auto r = fetch("/obj/a?size=1");
  EXPECT_EQ(r.status, 403U);
  EXPECT_EQ(origin_.log().total(), 0U);
}

TEST_F(ProxyTest, ARequestThatAlreadyPassedThisNodeIsALoop) {  // RFC 9110 §7.6.3
  ASSERT_TRUE(start_proxy());
  const auto r = fetch("/obj/a", {{"Via", "1.1 other, 1.1 test-node"}});
  EXPECT_EQ(r.status, 508U);
  EXPECT_EQ(origin_.log().total(), 0U);
}

TEST_F(ProxyTest, SigtermDrainsAndExitsZero) {
  ASSERT_TRUE(start_proxy());
  fetch("/obj/a?size=10");
  stop_proxy();
}

}  // namespace
}  // namespace sumcache::testing
