#include "daemon/http/validation.h"

#include <gtest/gtest.h>

#include "tests/daemon/http/http_test_times.h"

namespace sumcache::daemon {
namespace {

using testing::at;
using testing::date_at;

ConditionalOutcome evaluate(const HeaderList& request, const HeaderList& stored,
                            std::string_view method = "GET") {
  return evaluate_conditional(method, request, stored, at(0));
}

// RFC 9111 §4.3.1: the validators of the stored response, verbatim.
TEST(Validation, ConditionalHeadersCarryStoredValidators_Rfc9111_4_3_1) {
  const HeaderList stored = {{"ETag", R"(W/"v1")"}, {"Last-Modified", date_at(-60)}};
  const HeaderList expected = {{"If-None-Match", R"(W/"v1")"}, {"If-Modified-Since", date_at(-60)}};
  EXPECT_EQ(conditional_headers(stored), expected);
  EXPECT_TRUE(conditional_headers({{"Date", date_at(0)}}).empty());
}

// RFC 9110 §13.1.2: If-None-Match uses weak comparison, so W/"a" matches "a".
TEST(Validation, IfNoneMatchUsesWeakComparison_Rfc9110_13_1_2) {
  const HeaderList stored = {{"ETag", R"(W/"a")"}};
  EXPECT_EQ(evaluate({{"If-None-Match", R"("a")"}}, stored), ConditionalOutcome::send_not_modified);
  EXPECT_EQ(evaluate({{"If-None-Match", R"("x", W/"a")"}}, stored),
            ConditionalOutcome::send_not_modified);
  EXPECT_EQ(evaluate({{"If-None-Match", R"("x")"}, {"If-None-Match", R"("a")"}}, stored),
            ConditionalOutcome::send_not_modified);
  EXPECT_EQ(evaluate({{"If-None-Match", R"("b")"}}, stored), ConditionalOutcome::send_full);
  EXPECT_EQ(evaluate({{"If-None-Match", "*"}}, stored), ConditionalOutcome::send_not_modified);
  EXPECT_EQ(evaluate({{"If-None-Match", R"("a")"}}, {}), ConditionalOutcome::send_full);
  EXPECT_EQ(evaluate({{"If-None-Match", "a"}}, stored), ConditionalOutcome::send_full);
}

TEST(Validation, EntityTagsMayContainCommas) {
  const HeaderList stored = {{"ETag", R"("a,b")"}};
  EXPECT_EQ(evaluate({{"If-None-Match", R"("x", "a,b")"}}, stored),
            ConditionalOutcome::send_not_modified);
}

// RFC 9110 §13.2.2: If-None-Match takes precedence over If-Modified-Since.
TEST(Validation, IfNoneMatchTakesPrecedenceOverIfModifiedSince_Rfc9110_13_2_2) {
  const HeaderList stored = {{"ETag", R"("a")"}, {"Last-Modified", date_at(-100)}};
  EXPECT_EQ(evaluate({{"If-None-Match", R"("old")"}, {"If-Modified-Since", date_at(0)}}, stored),
            ConditionalOutcome::send_full);
}

// RFC 9110 §13.1.3: not modified when Last-Modified is not after the date.
TEST(Validation, IfModifiedSinceComparesLastModified_Rfc9110_13_1_3) {
  const HeaderList stored = {{"Last-Modified", date_at(-100)}, {"Date", date_at(0)}};
  EXPECT_EQ(evaluate({{"If-Modified-Since", date_at(-100)}}, stored),
            ConditionalOutcome::send_not_modified);
  EXPECT_EQ(evaluate({{"If-Modified-Since", date_at(-50)}}, stored),
            ConditionalOutcome::send_not_modified);
  EXPECT_EQ(evaluate({{"If-Modified-Since", date_at(-101)}}, stored),
            ConditionalOutcome::send_full);
  EXPECT_EQ(evaluate({{"If-Modified-Since", "last week"}}, stored), ConditionalOutcome::send_full);
}

// RFC 9111 §4.3.2: without Last-Modified the stored Date stands in.
TEST(Validation, IfModifiedSinceFallsBackToDate_Rfc9111_4_3_2) {
  const HeaderList stored = {{"Date", date_at(-10)}};
  EXPECT_EQ(evaluate({{"If-Modified-Since", date_at(-10)}}, stored),
            ConditionalOutcome::send_not_modified);
  EXPECT_EQ(evaluate({{"If-Modified-Since", date_at(-11)}}, stored), ConditionalOutcome::send_full);
}

// RFC 9111 §4.3.2: If-Match and If-Unmodified-Since are not for a cache.
TEST(Validation, OriginOnlyPreconditionsAreForwarded_Rfc9111_4_3_2) {
  const HeaderList stored = {{"ETag", R"("a")"}};
  EXPECT_EQ(evaluate({{"If-Match", R"("a")"}}, stored), ConditionalOutcome::forward);
  EXPECT_EQ(evaluate({{"If-Unmodified-Since", date_at(0)}}, stored), ConditionalOutcome::forward);
  EXPECT_EQ(evaluate({{"If-None-Match", R"("a")"}}, stored, "DELETE"), ConditionalOutcome::forward);
  EXPECT_EQ(evaluate({{"If-None-Match", R"("a")"}}, stored, "HEAD"),
            ConditionalOutcome::send_not_modified);
  EXPECT_EQ(evaluate({}, stored), ConditionalOutcome::send_full);
}

// RFC 9110 §15.4.5: what a 304 repeats from the stored 200.
TEST(Validation, NotModifiedRepeatsTheListedFields_Rfc9110_15_4_5) {
  const HeaderList stored = {
      {"Date", date_at(0)},           {"ETag", R"("a")"},      {"Content-Type", "text/html"},
      {"Cache-Control", "max-age=9"}, {"Vary", "Accept"},      {"Last-Modified", date_at(-9)},
      {"Content-Length", "10"},       {"Expires", date_at(9)}, {"Content-Location", "/a.html"}};
  const HeaderList expected = {{"Date", date_at(0)},           {"ETag", R"("a")"},
                               {"Cache-Control", "max-age=9"}, {"Vary", "Accept"},
                               {"Expires", date_at(9)},        {"Content-Location", "/a.html"}};
  EXPECT_EQ(not_modified_fields(stored), expected);
  const HeaderList no_etag = {{"Last-Modified", date_at(-9)}, {"Content-Type", "x"}};
  const HeaderList last_modified_only = {{"Last-Modified", date_at(-9)}};
  EXPECT_EQ(not_modified_fields(no_etag), last_modified_only);
}

// RFC 9111 §4.3.4: the 304's fields replace the stored ones, except
// Content-Length and what §3.1 keeps out of the store.
TEST(Validation, NotModifiedUpdatesStoredFieldsButKeepsContentLength_Rfc9111_4_3_4) {
  const HeaderList stored = {
      {"Date", date_at(0)},          {"ETag", R"("a")"}, {"Cache-Control", "max-age=60"},
      {"Content-Length", "1234"},    {"X-Multi", "1"},   {"X-Multi", "2"},
      {"Content-Type", "text/plain"}};
  const HeaderList not_modified = {{"Date", date_at(500)},           {"ETag", R"("a")"},
                                   {"cache-control", "max-age=600"}, {"Content-Length", "0"},
                                   {"Connection", "close"},          {"X-Multi", "3"},
                                   {"Transfer-Encoding", "chunked"}};
  const auto merged = freshen_stored_headers(stored, not_modified, at(501), {});
  ASSERT_TRUE(merged.has_value());
  const HeaderList expected = {{"Content-Length", "1234"},       {"Content-Type", "text/plain"},
                               {"Date", date_at(500)},           {"ETag", R"("a")"},
                               {"cache-control", "max-age=600"}, {"X-Multi", "3"}};
  EXPECT_EQ(*merged, expected);
}

// RFC 9110 §6.6.1: a 304 without Date is dated on receipt, so the refreshed
// response's age starts at the revalidation.
TEST(Validation, NotModifiedWithoutDateIsDatedOnReceipt) {
  const HeaderList stored = {{"Date", date_at(0)}, {"ETag", R"("a")"}};
  const auto merged = freshen_stored_headers(stored, {{"ETag", R"("a")"}}, at(900), {});
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(first_value(*merged, "Date"), date_at(900));
  EXPECT_EQ(count_fields(*merged, "Date"), 1U);
}

// RFC 9111 §4.3.4: a 304 whose validator is not the stored one updates nothing.
TEST(Validation, NotModifiedForAnotherRepresentationIsRejected_Rfc9111_4_3_4) {
  const HeaderList strong = {{"ETag", R"("a")"}, {"Last-Modified", date_at(-9)}};
  EXPECT_FALSE(freshen_stored_headers(strong, {{"ETag", R"("b")"}}, at(0), {}).has_value());
  EXPECT_TRUE(freshen_stored_headers(strong, {{"ETag", R"(W/"a")"}}, at(0), {}).has_value());
  const HeaderList weak = {{"ETag", R"(W/"a")"}};
  EXPECT_FALSE(freshen_stored_headers(weak, {{"ETag", R"("a")"}}, at(0), {}).has_value());
  EXPECT_FALSE(freshen_stored_headers({}, {{"ETag", R"("a")"}}, at(0), {}).has_value());
  EXPECT_FALSE(freshen_stored_headers(strong, {{"Last-Modified", date_at(-8)}}, at(0), {}).has_value());
  EXPECT_TRUE(freshen_stored_headers(strong, {{"Date", date_at(0)}}, at(0), {}).has_value());
  // A Last-Modified in the 304 corresponds to no stored response without one.
  const HeaderList etag_only = {{"ETag", R"("a")"}};
  EXPECT_FALSE(
      freshen_stored_headers(etag_only, {{"Last-Modified", date_at(-9)}}, at(0), {}).has_value());
  EXPECT_TRUE(freshen_stored_headers(strong, {{"Last-Modified", date_at(-9)}}, at(0), {}).has_value());
}

// RFC 9110 §13.2.1: preconditions apply only where the response would be 2xx (or 412).
TEST(Validation, PreconditionsApplyOnlyToA2xx_Rfc9110_13_2_1) {
  EXPECT_TRUE(preconditions_apply(200));
  EXPECT_TRUE(preconditions_apply(204));
  EXPECT_TRUE(preconditions_apply(412));
  EXPECT_FALSE(preconditions_apply(301));
  EXPECT_FALSE(preconditions_apply(404));
  EXPECT_FALSE(preconditions_apply(500));
}

// RFC 9110 §13.1.3: If-Modified-Since on two lines is not a date: ignored.
TEST(Validation, IfModifiedSinceOnTwoLinesIsIgnored_Rfc9110_13_1_3) {
  const HeaderList stored = {{"Date", date_at(0)}, {"Last-Modified", date_at(-100)}};
  const HeaderList one = {{"If-Modified-Since", date_at(0)}};
  EXPECT_EQ(evaluate_conditional("GET", one, stored, at(1)), ConditionalOutcome::send_not_modified);
  const HeaderList two = {{"If-Modified-Since", date_at(0)}, {"If-Modified-Since", date_at(0)}};
  EXPECT_EQ(evaluate_conditional("GET", two, stored, at(1)), ConditionalOutcome::send_full);
}

// RFC 9111 §3.1: a 304 that brings no-cache="set-cookie" clears the stored cookie.
TEST(Validation, NotModifiedCanKeepFieldsOutOfTheStore) {
  const HeaderList stored = {{"Date", date_at(0)}, {"Set-Cookie", "id=1"}};
  const auto merged =
      freshen_stored_headers(stored, {{"Cache-Control", R"(no-cache="Set-Cookie")"}}, at(1), {});
  ASSERT_TRUE(merged.has_value());
  EXPECT_FALSE(has_field(*merged, "Set-Cookie"));
}

// RFC 9213 §2.2 with RFC 9111 §3.1: when a targeted field is in charge, its
// qualified private names the fields kept out, and Cache-Control's does not.
TEST(Validation, NotModifiedKeepsOutWhatTheTargetedFieldNames_Rfc9213_2_2) {
  const std::vector<std::string> cdn{"CDN-Cache-Control"};
  const HeaderList stored = {{"Date", date_at(0)}, {"Set-Cookie", "id=1"}, {"X-Session", "s"}};
  const auto merged = freshen_stored_headers(stored,
                                             {{"CDN-Cache-Control", R"(private="X-Session")"},
                                              {"Cache-Control", R"(no-cache="Set-Cookie")"}},
                                             at(1), cdn);
  ASSERT_TRUE(merged.has_value());
  EXPECT_TRUE(has_field(*merged, "Set-Cookie"));
  EXPECT_FALSE(has_field(*merged, "X-Session"));
  EXPECT_EQ(first_value(*merged, "CDN-Cache-Control"), R"(private="X-Session")");
}

}  // namespace
}  // namespace sumcache::daemon
