#include "daemon/session/read_failure.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

// A client that went away mid-head, or a read cancelled at drain: nobody to answer.
TEST(ReadFailure, AClientThatWentAwayGetsNoAnswer) {
  for (const error_code ec :
       {error_code(beast::http::error::end_of_stream),
        error_code(beast::http::error::partial_message), error_code(asio::error::eof),
        error_code(asio::error::connection_reset), error_code(asio::error::operation_aborted)}) {
    EXPECT_EQ(read_failure(ec), std::nullopt) << ec.message();
  }
}

TEST(ReadFailure, LimitsAndTimeoutsGetTheirStatus) {
  const auto timeout = read_failure(beast::error::timeout);
  ASSERT_TRUE(timeout);
  EXPECT_EQ(timeout->first, beast::http::status::request_timeout);  // RFC 9110 §15.5.9
  EXPECT_EQ(timeout->second, "request head not received in time");

  const auto head = read_failure(beast::http::error::header_limit);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->first, beast::http::status::request_header_fields_too_large);  // RFC 6585 §5
  EXPECT_EQ(head->second, "request head exceeds limits.max_header_bytes");

  const auto body = read_failure(beast::http::error::body_limit);
  ASSERT_TRUE(body);
  EXPECT_EQ(body->first, beast::http::status::payload_too_large);  // RFC 9110 §15.5.14
  EXPECT_EQ(body->second, "request body exceeds limits.max_body_bytes");
}

// RFC 9112 §2.2: a malformed request is answered 400, naming what was wrong.
TEST(ReadFailure, AMalformedRequestIs400WithBeastsReason_Rfc9112_2_2) {
  for (const beast::http::error e :
       {beast::http::error::bad_method, beast::http::error::bad_target,
        beast::http::error::bad_version, beast::http::error::bad_field,
        beast::http::error::bad_content_length, beast::http::error::bad_chunk}) {
    const error_code ec = e;
    const auto failure = read_failure(ec);
    ASSERT_TRUE(failure) << ec.message();
    EXPECT_EQ(failure->first, beast::http::status::bad_request) << ec.message();
    EXPECT_EQ(failure->second, "malformed request: " + ec.message());
  }
}

// Anything else (a socket error outside Beast's HTTP category) closes silently.
TEST(ReadFailure, OtherErrorsGetNoAnswer) {
  EXPECT_EQ(read_failure(asio::error::broken_pipe), std::nullopt);
  EXPECT_EQ(read_failure(asio::error::host_unreachable), std::nullopt);
  EXPECT_EQ(read_failure(asio::error::connection_refused), std::nullopt);
}

}  // namespace
}  // namespace sumcache::daemon
