// HttpClient and the raw client against the test origin, HTTPS included.

#include "tests/support/http_client.h"

#include <gtest/gtest.h>

#include "tests/support/deterministic_body.h"
#include "tests/support/raw_client.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_origin.h"
#include "tests/support/test_pki.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

class HttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(origin_.start()); }
  TestOrigin origin_;
};

TEST_F(HttpClientTest, KeepAliveReusesOneConnection) {
  HttpClient reusing({.port = origin_.port()});
  HttpClient fresh({.port = origin_.port(), .reuse_connection = false});
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(reusing.send({.target = "/obj/k"}).value().status, 200u);
    EXPECT_EQ(fresh.send({.target = "/obj/k"}).value().status, 200u);
  }
  EXPECT_EQ(reusing.connections_opened(), 1u);
  EXPECT_EQ(fresh.connections_opened(), 3u);
}

TEST_F(HttpClientTest, ConnectionCloseFromTheServerMakesTheNextRequestReconnect) {
  HttpClient client({.port = origin_.port()});
  const auto closing = client.send({.target = "/obj/k", .headers = {{"Connection", "close"}}});
  EXPECT_FALSE(closing.value().keep_alive);
  EXPECT_EQ(client.send({.target = "/obj/k"}).value().status, 200u);
  EXPECT_EQ(client.connections_opened(), 2u);
}

TEST_F(HttpClientTest, TimesOutOnASlowServer) {
  HttpClient client({.port = origin_.port(), .timeout = 200ms});
  const auto start = std::chrono::steady_clock::now();
  const auto response = client.send({.target = "/obj/slow?delay_ms=3000"});
  EXPECT_FALSE(response.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_F(HttpClientTest, SendsAbsoluteFormForForwardProxies) {
  const std::string target = "http://127.0.0.1:" + std::to_string(origin_.port()) + "/obj/abs";
  HttpClient client({.port = origin_.port()});
  EXPECT_EQ(client.send({.target = target}).value().status, 200u);
  ASSERT_EQ(origin_.log().count("/obj/abs"), 1u);
  EXPECT_EQ(origin_.log().entries().back().target, target);
}

TEST_F(HttpClientTest, ChunkedRequestBodyIsFramedByTheClient) {
  HttpClient client({.port = origin_.port()});
  const auto response = client.send({.method = "POST",
                                     .target = "/echo",
                                     .headers = {{"Transfer-Encoding", "chunked"}},
                                     .body = "streamed"});
  EXPECT_EQ(origin_.log().entries().back().body_bytes, 8u);
  EXPECT_EQ(find_header(origin_.log().entries().back().headers, "Content-Length"), std::nullopt);
  EXPECT_EQ(response.value().status, 200u);
}

TEST_F(HttpClientTest, RawPipelinedRequestsAreAnsweredInOrder) {
  const std::string requests =
      "GET /obj/p1?size=10 HTTP/1.1\r\nHost: o\r\n\r\n"
      "GET /obj/p2?size=20&chunked=1 HTTP/1.1\r\nHost: o\r\n\r\n"
      "GET /obj/p3?size=30 HTTP/1.1\r\nHost: o\r\nConnection: close\r\n\r\n";
  const auto reply = raw_exchange("127.0.0.1", origin_.port(), requests, 2s);
  ASSERT_TRUE(reply.ok()) << reply.error().message();
  EXPECT_TRUE(reply->peer_closed);
  const auto responses = parse_responses(reply->data);
  ASSERT_EQ(responses.size(), 3u);
  EXPECT_EQ(responses[0].body, deterministic_body("/obj/p1", "", 10));
  EXPECT_EQ(responses[1].body, deterministic_body("/obj/p2", "", 20));
  EXPECT_EQ(responses[2].body, deterministic_body("/obj/p3", "", 30));
  EXPECT_EQ(origin_.log().total(), 3u);
}

TEST_F(HttpClientTest, RawGarbageGetsTheConnectionClosed) {
  const auto reply = raw_exchange("127.0.0.1", origin_.port(), "\x01\x02 not http\r\n\r\n", 2s);
  ASSERT_TRUE(reply.ok());
  EXPECT_TRUE(reply->peer_closed);
  EXPECT_EQ(origin_.log().total(), 0u);
}

TEST_F(HttpClientTest, RawReadEndsAtTheTimeoutWhenTheServerWaits) {
  const auto reply = raw_exchange("127.0.0.1", origin_.port(), "GET /obj/half HTTP/1.1\r\n", 200ms);
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(reply->peer_closed);
  EXPECT_EQ(reply->data, "");
}

class HttpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pki_ = make_test_pki(dir_.path());
    origin_.emplace(OriginOptions{.tls = TlsFiles{pki_.server_cert, pki_.server_key}});
    ASSERT_FALSE(origin_->start());
  }
  TempDir dir_;
  TestPki pki_;
  std::optional<TestOrigin> origin_;
};

TEST_F(HttpsTest, OriginIsVerifiedAgainstTheGeneratedCa) {
  for (const char* host : {"localhost", "127.0.0.1"}) {
    HttpClient client({.port = origin_->port(), .tls_ca = pki_.ca_cert, .tls_host = host});
    const auto response = client.send({.target = "/obj/tls?size=4000"});
    ASSERT_TRUE(response.ok()) << host << ": " << response.error().message();
    EXPECT_EQ(response->body, deterministic_body("/obj/tls", "", 4000));
  }
}

TEST_F(HttpsTest, VerificationRejectsAWrongNameOrAnotherCa) {
  HttpClient wrong_name(
      {.port = origin_->port(), .tls_ca = pki_.ca_cert, .tls_host = "example.org"});
  EXPECT_FALSE(wrong_name.send({.target = "/obj/tls"}).ok());
  TempDir other_dir;
  const TestPki other = make_test_pki(other_dir.path());
  HttpClient wrong_ca({.port = origin_->port(), .tls_ca = other.ca_cert});
  EXPECT_FALSE(wrong_ca.send({.target = "/obj/tls"}).ok());
  EXPECT_EQ(origin_->log().total(), 0u);
}

}  // namespace
}  // namespace sumcache::testing
