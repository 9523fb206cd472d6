// peer_http_exchange against a real HTTP server on loopback (the test
// origin): a peer's answer is read only up to the bound its request allows.

#include "daemon/peer/peer_http.h"

#include <gtest/gtest.h>

#include "tests/support/asio_support.h"
#include "tests/support/test_origin.h"

namespace sumcache::daemon {
namespace {

using testing::TestOrigin;

std::tuple<error_code, PeerHttpReply> exchange(PeerHttpRequest request) {
  asio::io_context ioc;
  return testing::run_sync(
      ioc, peer_http_exchange(ioc.get_executor(), std::move(request), std::chrono::seconds(5)));
}

PeerHttpRequest post_to(std::uint16_t port, std::size_t answer_bytes) {
  PeerHttpRequest request;
  request.method = beast::http::verb::post;
  request.host = "127.0.0.1";
  request.port = port;
  request.target = "/obj/answer?size=" + std::to_string(answer_bytes);
  request.body = "batch";
  request.from = "node-a";
  return request;
}

class PeerHttp : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(origin_.start()); }
  TestOrigin origin_;
};

// A push's or a batch's answer is a status text or an ack: a peer that
// answers with more is cut off, not buffered (it used to be read up to 64 MiB).
TEST_F(PeerHttp, AnAnswerOverTheReplyBoundIsRefused) {
  auto [ec, reply] = exchange(post_to(origin_.port(), kMaxPeerReplyBytes + 1));
  EXPECT_EQ(ec, beast::http::error::body_limit) << ec.message();
}

TEST_F(PeerHttp, AnAnswerWithinTheReplyBoundIsRead) {
  auto [ec, reply] = exchange(post_to(origin_.port(), kMaxPeerReplyBytes));
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(reply.status, 200u);
  EXPECT_EQ(reply.body.size(), kMaxPeerReplyBytes);
}

// A pull raises the bound to the largest summary that peer may send.
TEST_F(PeerHttp, APullReadsUpToTheBoundItSets) {
  PeerHttpRequest request;
  request.host = "127.0.0.1";
  request.port = origin_.port();
  request.target = "/obj/summary?size=100000";
  request.max_reply_bytes = 100000;
  auto [ec, reply] = exchange(request);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(reply.body.size(), 100000u);
  request.max_reply_bytes = 99999;
  auto [ec2, reply2] = exchange(request);
  EXPECT_EQ(ec2, beast::http::error::body_limit) << ec2.message();
}

}  // namespace
}  // namespace sumcache::daemon
