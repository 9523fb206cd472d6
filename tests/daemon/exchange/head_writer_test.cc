#include "daemon/exchange/head_writer.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

TEST(HeadWriter, SerializesTheStatusLineAndFieldsInOrder) {
  beast::http::response_header<> head;
  head.version(11);
  head.result(beast::http::status::ok);
  head.set(beast::http::field::content_type, "text/plain");
  head.insert("X-Multi", "a");
  head.insert("X-Multi", "b");
  EXPECT_EQ(serialize_head(head),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Multi: a\r\nX-Multi: b\r\n");
  EXPECT_EQ(serialize_fields(head), "Content-Type: text/plain\r\nX-Multi: a\r\nX-Multi: b\r\n");
}

// The reason phrase as received; Beast's standard one where there was none
// (RFC 9112 §4: the reason is optional, the space before it is not).
TEST(HeadWriter, KeepsTheReceivedReasonOrUsesTheStandardOne_Rfc9112_4) {
  beast::http::response_header<> head;
  head.version(10);
  head.result(404);
  EXPECT_EQ(serialize_head(head), "HTTP/1.0 404 Not Found\r\n");
  head.reason("Nope");
  EXPECT_EQ(serialize_head(head), "HTTP/1.0 404 Nope\r\n");
}

// RFC 9110 §7.6.1: the standard list and the fields Connection names go.
TEST(HeadWriter, StripsHopByHopFieldsAndThoseConnectionNames_Rfc9110_7_6_1) {
  beast::http::fields fields;
  fields.insert(beast::http::field::connection, "keep-alive, X-Local");
  fields.insert("connection", "x-other");
  fields.insert(beast::http::field::keep_alive, "timeout=5");
  fields.insert(beast::http::field::transfer_encoding, "chunked");
  fields.insert(beast::http::field::te, "trailers");
  fields.insert(beast::http::field::upgrade, "h2c");
  fields.insert("Proxy-Connection", "keep-alive");
  fields.insert("x-local", "1");
  fields.insert("X-Other", "2");
  fields.insert(beast::http::field::cache_control, "max-age=60");
  fields.insert("X-Kept", "3");
  strip_hop_by_hop(fields);
  EXPECT_EQ(serialize_fields(fields), "Cache-Control: max-age=60\r\nX-Kept: 3\r\n");
}

// RFC 9110 §7.6.3: our member after those already there.
TEST(HeadWriter, AppendsOurViaMemberLast_Rfc9110_7_6_3) {
  beast::http::fields none;
  append_via(none, "1.1 cache-a");
  EXPECT_EQ(serialize_fields(none), "Via: 1.1 cache-a\r\n");

  beast::http::fields some;
  some.set(beast::http::field::via, "1.0 fred");
  append_via(some, "1.1 cache-a");
  EXPECT_EQ(serialize_fields(some), "Via: 1.0 fred, 1.1 cache-a\r\n");
}

}  // namespace
}  // namespace sumcache::daemon
