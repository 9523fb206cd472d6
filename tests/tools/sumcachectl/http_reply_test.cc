#include "tools/sumcachectl/http_reply.h"

#include <gtest/gtest.h>

#include "tools/sumcachectl/ctl_error.h"

namespace sumcache::tools {
namespace {

TEST(HttpReply, ContentLengthFramesTheBody) {
  const std::string raw =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
  auto r = parse_http_reply(raw, false);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->status, 200U);
  EXPECT_EQ(r->content_type, "application/json");
  EXPECT_EQ(r->body, "{}");
  EXPECT_EQ(parse_http_reply(raw.substr(0, raw.size() - 1), false).error(),
            CtlErrc::incomplete_response);
  EXPECT_EQ(parse_http_reply(raw.substr(0, 20), true).error(), CtlErrc::incomplete_response);
}

TEST(HttpReply, ChunkedBodiesAreDecodedWithExtensionsAndTrailers) {
  const std::string raw =
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
      "3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n";
  auto r = parse_http_reply(raw, false);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->body, "abc0123456789");
  EXPECT_EQ(parse_http_reply(raw.substr(0, raw.size() - 2), false).error(),
            CtlErrc::incomplete_response);
  EXPECT_EQ(parse_http_reply("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false)
                .error(),
            CtlErrc::malformed_response);
}

TEST(HttpReply, ABodyWithoutFramingEndsWhenTheServerCloses) {
  const std::string raw = "HTTP/1.0 404 Not Found\r\n\r\nno such URL";
  EXPECT_EQ(parse_http_reply(raw, false).error(), CtlErrc::incomplete_response);
  auto r = parse_http_reply(raw, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404U);
  EXPECT_EQ(r->body, "no such URL");
}

TEST(HttpReply, InterimResponsesAreSkipped) {
  auto r = parse_http_reply(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n", false);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401U);
}

TEST(HttpReply, MalformedHeadsAreRefused) {
  for (const char* raw :
       {"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", "SSH-2.0\r\n\r\n"}) {
    EXPECT_EQ(parse_http_reply(raw, true).error(), CtlErrc::malformed_response) << raw;
  }
}

TEST(HttpReply, SizesOverTheCapsAreRefusedBeforeTheBytesArrive) {
  const std::string big_length =
      "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(kMaxReplyBodyBytes + 1) + "\r\n\r\n";
  EXPECT_EQ(parse_http_reply(big_length, false).error(), CtlErrc::response_too_large);
  const std::string big_chunk =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffff\r\n";
  EXPECT_EQ(parse_http_reply(big_chunk, false).error(), CtlErrc::response_too_large);
  const std::string endless_head = "HTTP/1.1 200 OK\r\n" + std::string(kMaxReplyHeadBytes, 'a');
  EXPECT_EQ(parse_http_reply(endless_head, false).error(), CtlErrc::response_too_large);
}

}  // namespace
}  // namespace sumcache::tools
