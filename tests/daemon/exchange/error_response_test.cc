#include "daemon/exchange/error_response.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

// A short text saying why (as Squid and Varnish do), never stored, naming us.
TEST(ErrorResponse, SaysWhyAndIsNeverStored) {
  const auto res = make_error_response(beast::http::status::bad_gateway,
                                       "origin refused the connection", true, 11, "1.1 cache-a");
  EXPECT_EQ(res.result(), beast::http::status::bad_gateway);
  EXPECT_EQ(res.version(), 11U);
  EXPECT_EQ(res.body(), "502 Bad Gateway: origin refused the connection\n");
  EXPECT_EQ(res[beast::http::field::content_type], "text/plain; charset=utf-8");
  EXPECT_EQ(res[beast::http::field::cache_control], "no-store");  // RFC 9111 §5.2.2.5
  EXPECT_EQ(res[beast::http::field::via], "1.1 cache-a");
  EXPECT_EQ(res["X-Cache"], "ERROR");
  EXPECT_EQ(res[beast::http::field::content_length], std::to_string(res.body().size()));
  EXPECT_TRUE(res.keep_alive());
  EXPECT_EQ(res.count(beast::http::field::connection), 0U);
}

// RFC 9112 §9.6: a closing answer says "close", for HTTP/1.0 too.
TEST(ErrorResponse, AClosingAnswerSaysClose_Rfc9112_9_6) {
  for (const unsigned version : {10U, 11U}) {
    const auto res = make_error_response(beast::http::status::request_timeout, "too slow", false,
                                         version, "1.1 cache-a");
    EXPECT_EQ(res.version(), version);
    EXPECT_FALSE(res.keep_alive()) << version;
    EXPECT_EQ(res[beast::http::field::connection], "close") << version;
  }
}

// Anything but HTTP/1.0 is answered as HTTP/1.1, the highest we speak.
TEST(ErrorResponse, AnswersHttp11ToAnythingButHttp10) {
  EXPECT_EQ(make_error_response(beast::http::status::bad_request, "x", false, 9, "v").version(),
            11U);
  EXPECT_EQ(make_error_response(beast::http::status::bad_request, "x", false, 20, "v").version(),
            11U);
}

}  // namespace
}  // namespace sumcache::daemon
