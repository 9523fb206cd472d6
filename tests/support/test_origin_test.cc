// The in-process test origin over real loopback sockets.

#include "tests/support/test_origin.h"

#include <gtest/gtest.h>

#include <thread>

#include "tests/support/deterministic_body.h"
#include "tests/support/echo_format.h"
#include "tests/support/http_client.h"
#include "tests/support/http_date.h"
#include "tests/support/ports.h"
#include "tests/support/raw_client.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class TestOriginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(origin_.start());
    client_.emplace(ClientOptions{.port = origin_.port()});
  }

  ClientResponse send(ClientRequest request) {
    auto response = client_->send(request);
    EXPECT_TRUE(response.ok()) << request.target << ": " << response.error().message();
    return response.ok() ? std::move(response).value() : ClientResponse{};
  }
  ClientResponse get(std::string target, HeaderList headers = {}) {
    return send({.target = std::move(target), .headers = std::move(headers)});
  }

  TestOrigin origin_;
  std::optional<HttpClient> client_;
};

TEST_F(TestOriginTest, ObjectHasTheRequestedSizeAndDeterministicBytes) {
  const auto response = get("/obj/a?size=70000&body_seed=s");
  EXPECT_EQ(response.status, 200u);
  EXPECT_EQ(response.header("Content-Length"), "70000");
  EXPECT_EQ(response.body, deterministic_body("/obj/a", "s", 70000));
  const auto date = parse_http_date(response.header("Date").value_or(""));
  ASSERT_TRUE(date);
  EXPECT_LT(std::chrono::abs(*date - std::chrono::system_clock::now()), 2s);
}

TEST_F(TestOriginTest, ObjectHeadersComeFromTheQuery) {
  const auto response =
      get("/obj/h?etag=v1&max_age=60&cc=public%2C%20no-transform&last_modified=784111777"
          "&expires=784111777&vary=Accept-Encoding&set_cookie=1&status=203");
  EXPECT_EQ(response.status, 203u);
  EXPECT_EQ(response.header("ETag"), "\"v1\"");
  EXPECT_EQ(response.header("Cache-Control"), "public, no-transform, max-age=60");
  EXPECT_EQ(response.header("Last-Modified"), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(response.header("Expires"), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(response.header("Vary"), "Accept-Encoding");
  EXPECT_TRUE(response.header("Set-Cookie"));
  EXPECT_EQ(get("/obj/h?expires=invalid").header("Expires"), "0");
}

TEST_F(TestOriginTest, EachVariantHasItsOwnBytes) {
  const std::string target = "/obj/v?vary=Accept-Encoding&size=64&body_seed=s";
  const auto gzip = get(target, {{"Accept-Encoding", "gzip"}});
  const auto br = get(target, {{"Accept-Encoding", "br"}});
  EXPECT_EQ(gzip.body, deterministic_body("/obj/v", "s|gzip", 64));
  EXPECT_EQ(br.body, deterministic_body("/obj/v", "s|br", 64));
}

TEST_F(TestOriginTest, MatchingIfNoneMatchGives304WithValidatorsAndNoBody) {
  const std::string target = "/obj/c?etag=v1&max_age=60";
  for (const char* tag : {"\"v1\"", "W/\"v1\"", "*"}) {
    const auto response = get(target, {{"If-None-Match", tag}});
    EXPECT_EQ(response.status, 304u) << tag;
    EXPECT_EQ(response.header("ETag"), "\"v1\"");
    EXPECT_EQ(response.header("Cache-Control"), "max-age=60");
    EXPECT_FALSE(response.header("Content-Length"));
    EXPECT_TRUE(response.body.empty());
  }
  EXPECT_EQ(get(target, {{"If-None-Match", "\"v2\""}}).status, 200u);
  EXPECT_EQ(client_->connections_opened(), 1u);  // 304s left the connection usable
}

TEST_F(TestOriginTest, IfModifiedSinceGives304UnlessModifiedLater) {
  const std::string target = "/obj/m?last_modified=784111777";
  EXPECT_EQ(get(target, {{"If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT"}}).status, 304u);
  EXPECT_EQ(get(target, {{"If-Modified-Since", "Sun, 06 Nov 1994 08:49:36 GMT"}}).status, 200u);
  EXPECT_EQ(get(target, {{"If-Modified-Since", "yesterday"}}).status, 200u);
}

TEST_F(TestOriginTest, HeadGetsTheGetHeadAndNoBody) {
  const auto head = send({.method = "HEAD", .target = "/obj/a?size=777"});
  EXPECT_EQ(head.status, 200u);
  EXPECT_EQ(head.header("Content-Length"), "777");
  EXPECT_TRUE(head.body.empty());
  // Stray body bytes after the HEAD response would break this next response on the connection.
  EXPECT_EQ(get("/obj/a?size=5").body, deterministic_body("/obj/a", "", 5));
  EXPECT_EQ(client_->connections_opened(), 1u);
}

TEST_F(TestOriginTest, ChunkedSendsTheBodyInChunks) {
  const auto response = get("/obj/big?size=50000&chunked=1");
  EXPECT_EQ(response.header("Transfer-Encoding"), "chunked");
  EXPECT_FALSE(response.header("Content-Length"));
  EXPECT_EQ(response.body, deterministic_body("/obj/big", "", 50000));
}

TEST_F(TestOriginTest, DelayedResponsesAreServedConcurrently) {
  const auto start = Clock::now();
  std::thread other([port = origin_.port()] {
    EXPECT_EQ(http_get(port, "/obj/d?delay_ms=300").value().status, 200u);
  });
  EXPECT_EQ(get("/obj/d?delay_ms=300").status, 200u);
  other.join();
  const auto elapsed = Clock::now() - start;
  EXPECT_GE(elapsed, 300ms);
  EXPECT_LT(elapsed, 590ms);  // one delay, not two after each other
}

TEST_F(TestOriginTest, LogCountsRequestsPerPath) {
  get("/obj/a?size=1");
  get("/obj/a?size=2");
  send({.method = "DELETE", .target = "/obj/b", .headers = {{"X-Trace", "t1"}}});
  EXPECT_EQ(origin_.log().count("/obj/a"), 2u);
  EXPECT_EQ(origin_.log().count("/obj/b"), 1u);
  EXPECT_EQ(origin_.log().count("/obj/c"), 0u);
  EXPECT_EQ(origin_.log().total(), 3u);
  const auto last = origin_.log().entries().back();
  EXPECT_EQ(last.method, "DELETE");
  EXPECT_EQ(last.target, "/obj/b");
  EXPECT_EQ(find_header(last.headers, "x-trace"), "t1");
  EXPECT_TRUE(origin_.log().wait_for_count("/obj/b", 1, 0ms));
  EXPECT_FALSE(origin_.log().wait_for_count("/obj/b", 2, 10ms));
}

TEST_F(TestOriginTest, EchoShowsWhatArrivedForAnyMethod) {
  const auto response = send({.method = "PURGE",
                              .target = "/echo?location=/x&content_location=/y",
                              .headers = {{"X-One", "1"}, {"X-One", "2"}},
                              .body = "hello"});
  EXPECT_EQ(response.header("Location"), "/x");
  EXPECT_EQ(response.header("Content-Location"), "/y");
  const auto echoed = parse_echo(response.body);
  ASSERT_TRUE(echoed.ok());
  EXPECT_EQ(echoed->method, "PURGE");
  EXPECT_EQ(echoed->target, "/echo?location=/x&content_location=/y");
  EXPECT_EQ(echoed->body, "hello");
  HeaderList ones;
  for (const auto& field : echoed->headers) {
    if (field.first == "X-One") ones.push_back(field);
  }
  EXPECT_EQ(ones, (HeaderList{{"X-One", "1"}, {"X-One", "2"}}));
  EXPECT_EQ(origin_.log().entries().back().body_bytes, 5u);
}

TEST_F(TestOriginTest, ExpectContinueGets100BeforeTheBodyIsSent) {
  const std::string body(100'000, 'b');
  const auto response = send({.method = "PUT",
                              .target = "/100-continue",
                              .headers = {{"Expect", "100-continue"}},
                              .body = body});
  ASSERT_EQ(response.interim.size(), 1u);
  EXPECT_EQ(response.interim[0].status, 100u);
  EXPECT_EQ(response.status, 200u);
  EXPECT_EQ(parse_echo(response.body).value().body, body);
}

TEST_F(TestOriginTest, EarlyHintsPrecedeTheFinalResponse) {
  const auto response = get("/early-hints");
  ASSERT_EQ(response.interim.size(), 1u);
  EXPECT_EQ(response.interim[0].status, 103u);
  EXPECT_TRUE(find_header(response.interim[0].headers, "Link"));
  EXPECT_EQ(response.status, 200u);
}

TEST_F(TestOriginTest, StatusRedirectAndUnknownRoutes) {
  EXPECT_EQ(get("/status/503").status, 503u);
  const auto redirect = get("/redirect?location=/obj/there");
  EXPECT_EQ(redirect.status, 301u);
  EXPECT_EQ(redirect.header("Location"), "/obj/there");
  EXPECT_EQ(get("/nowhere").status, 404u);
}

TEST_F(TestOriginTest, CloseRouteClosesWithoutAResponse) {
  const auto reply =
      raw_exchange("127.0.0.1", origin_.port(), "GET /close HTTP/1.1\r\nHost: o\r\n\r\n", 2s);
  ASSERT_TRUE(reply.ok());
  EXPECT_TRUE(reply->peer_closed);
  EXPECT_EQ(reply->data, "");
  EXPECT_FALSE(client_->send({.target = "/close"}).ok());
}

TEST_F(TestOriginTest, SlowBodyArrivesInDelayedPieces) {
  const auto start = Clock::now();
  const auto response = get("/slow-body?size=1000&chunk_size=250&chunk_delay_ms=40&body_seed=q");
  EXPECT_GE(Clock::now() - start, 160ms);
  EXPECT_EQ(response.body, deterministic_body("/slow-body", "q", 1000));
}

TEST_F(TestOriginTest, StopClosesTheListenerAndKeepsTheLog) {
  get("/obj/a");
  const auto port = origin_.port();
  origin_.stop();
  EXPECT_FALSE(port_accepts("127.0.0.1", port, 500ms));
  EXPECT_EQ(origin_.log().count("/obj/a"), 1u);
  EXPECT_EQ(origin_.port(), port);
}

TEST(TestOrigin, ServesOnIpv6Loopback) {
  TestOrigin origin({.address = "::1"});
  ASSERT_FALSE(origin.start());
  HttpClient client({.host = "::1", .port = origin.port()});
  const auto response = client.send({.target = "/obj/six?size=6"});
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->body.size(), 6u);
}

TEST(TestOrigin, RefusesAddressesOffLoopback) {
  TestOrigin origin({.address = "0.0.0.0"});
  EXPECT_EQ(origin.start(), std::make_error_code(std::errc::invalid_argument));
}

}  // namespace
}  // namespace sumcache::testing
