// The test origin's decisions and formats, without sockets.

#include "tests/support/origin_routes.h"

#include <gtest/gtest.h>

#include "tests/support/deterministic_body.h"
#include "tests/support/echo_format.h"
#include "tests/support/http_date.h"
#include "tests/support/request_target.h"

namespace sumcache::testing {
namespace {

OriginRequest request(http::verb method, std::string target) {
  OriginRequest r{method, target, 11};
  r.set(http::field::host, "origin.test");
  return r;
}

const SysTime kNow = std::chrono::system_clock::from_time_t(1'700'000'000);

TEST(OriginRoutes, HeadAnnouncesTheGetLengthButSendsNoBody) {
  const auto plan = plan_response(request(http::verb::head, "/obj/a?size=10"), kNow);
  EXPECT_EQ(plan.head.result_int(), 200u);
  EXPECT_EQ(plan.head[http::field::content_length], "10");
  EXPECT_FALSE(plan.send_body);
}

TEST(OriginRoutes, FieldsParameterAddsEachLineAsSent) {
  const std::string fields = percent_encode("CDN-Cache-Control: max-age=60\nX-A: 1\nbroken");
  const auto plan = plan_response(request(http::verb::get, "/obj/a?fields=" + fields), kNow);
  EXPECT_EQ(plan.head["CDN-Cache-Control"], "max-age=60");
  EXPECT_EQ(plan.head["X-A"], "1");
  EXPECT_EQ(plan.head.count("broken"), 0u);
}

std::string body_of(const ResponsePlan& plan) {
  std::string out(plan.body.size(), '\0');
  plan.body.fill(0, out);
  return out;
}

TEST(OriginRoutes, RangesParameterAnswersOneRangeWith206) {
  const std::string whole = deterministic_body("/obj/r", "", 10);
  auto r = request(http::verb::get, "/obj/r?size=10&ranges=1&etag=v1");
  for (const auto& [range, content_range, bytes] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"bytes=4-6", "bytes 4-6/10", whole.substr(4, 3)},
           {"bytes=7-", "bytes 7-9/10", whole.substr(7)},
           {"bytes=-5", "bytes 5-9/10", whole.substr(5)},
           {"bytes=8-100", "bytes 8-9/10", whole.substr(8)}}) {
    r.set(http::field::range, range);
    const auto plan = plan_response(r, kNow);
    EXPECT_EQ(plan.head.result_int(), 206u) << range;
    EXPECT_EQ(plan.head[http::field::content_range], content_range);
    EXPECT_EQ(plan.head[http::field::content_length], std::to_string(bytes.size()));
    EXPECT_EQ(body_of(plan), bytes);
  }
  r.set(http::field::range, "bytes=10-");
  EXPECT_EQ(plan_response(r, kNow).head.result_int(), 416u);
  r.set(http::field::range, "bytes=0-1,3-4");
  EXPECT_EQ(plan_response(r, kNow).head.result_int(), 200u);
  r.set(http::field::range, "bytes=0-1");
  r.set(http::field::if_range, "\"v2\"");
  EXPECT_EQ(plan_response(r, kNow).head.result_int(), 200u);  // If-Range failed: the whole
  r.set(http::field::if_range, "\"v1\"");
  EXPECT_EQ(plan_response(r, kNow).head.result_int(), 206u);
  // Without ranges=1 the Range is ignored.
  auto plain = request(http::verb::get, "/obj/r?size=10");
  plain.set(http::field::range, "bytes=0-1");
  EXPECT_EQ(plan_response(plain, kNow).head.result_int(), 200u);
}

TEST(OriginRoutes, EtagFromTakesTheETagFromARequestField) {
  auto r = request(http::verb::get, "/obj/e?size=10&etag=v1&etag_from=X-Version");
  const auto v1 = plan_response(r, kNow);
  EXPECT_EQ(v1.head[http::field::etag], "\"v1\"");
  EXPECT_EQ(body_of(v1), deterministic_body("/obj/e", "", 10));
  r.set("X-Version", "v2");
  const auto v2 = plan_response(r, kNow);
  EXPECT_EQ(v2.head[http::field::etag], "\"v2\"");
  EXPECT_EQ(body_of(v2), deterministic_body("/obj/e", "|\"v2\"", 10));
}

TEST(OriginRoutes, InterimParameterPlansThatInterimResponseBeforeTheObject) {
  EXPECT_EQ(plan_response(request(http::verb::get, "/obj/a?interim=102"), kNow).interim, 102u);
  const auto hints = plan_response(request(http::verb::get, "/obj/a?interim=103&max_age=60"), kNow);
  EXPECT_EQ(hints.interim, 103u);
  EXPECT_EQ(hints.head[http::field::cache_control], "max-age=60");
  EXPECT_EQ(plan_response(request(http::verb::get, "/obj/a"), kNow).interim, 0u);
  EXPECT_EQ(plan_response(request(http::verb::get, "/obj/a?interim=101"), kNow).head.result_int(),
            400u);
}

TEST(OriginRoutes, ContentLocationSelfAndEchoMethod) {
  const auto plan =
      plan_response(request(http::verb::post, "/obj/p?max_age=60&content_location=self"), kNow);
  EXPECT_EQ(plan.head[http::field::content_location], "/obj/p?max_age=60&content_location=self");
  EXPECT_EQ(plan.head["X-Request-Method"], "");
  EXPECT_EQ(plan_response(request(http::verb::post, "/obj/p?echo_method=1"), kNow)
                .head["X-Request-Method"],
            "POST");
  EXPECT_EQ(plan_response(request(http::verb::get, "/obj/p?content_location=/x"), kNow)
                .head[http::field::content_location],
            "/x");
}

TEST(OriginRoutes, IfNoneMatchListWithCommasInsideTagsStillMatches) {
  auto r = request(http::verb::get, "/obj/a?etag=v1");
  r.set(http::field::if_none_match, R"("a,b", W/"v1")");
  const auto plan = plan_response(r, kNow);
  EXPECT_EQ(plan.head.result_int(), 304u);
  EXPECT_EQ(plan.head[http::field::etag], "\"v1\"");
  EXPECT_EQ(plan.head.count(http::field::content_length), 0u);
}

TEST(OriginRoutes, IfNoneMatchOnAnUnsafeMethodFailsThePrecondition) {
  auto r = request(http::verb::put, "/obj/a?etag=v1");
  r.set(http::field::if_none_match, "*");
  EXPECT_EQ(plan_response(r, kNow).head.result_int(), 412u);
}

TEST(OriginRoutes, IfModifiedSinceIsIgnoredWhenIfNoneMatchIsPresent) {
  auto r = request(http::verb::get, "/obj/a?etag=v2&last_modified=1000");
  r.set(http::field::if_none_match, "\"v1\"");
  r.set(http::field::if_modified_since, format_http_date(kNow));
  EXPECT_EQ(plan_response(r, kNow).head.result_int(), 200u);
}

TEST(OriginRoutes, ConditionalsDoNotTurnAnErrorStatusInto304) {
  auto r = request(http::verb::get, "/obj/a?etag=v1&status=503");
  r.set(http::field::if_none_match, "\"v1\"");
  EXPECT_EQ(plan_response(r, kNow).head.result_int(), 503u);
}

TEST(OriginRoutes, MalformedNumbersGive400) {
  for (const char* target : {"/obj/a?size=12x", "/obj/a?status=99", "/obj/a?expires=soon",
                             "/echo?delay_ms=-1", "/status/abc", "/slow-body?chunk_size=0"}) {
    EXPECT_EQ(plan_response(request(http::verb::get, target), kNow).head.result_int(), 400u)
        << target;
  }
}

TEST(OriginRoutes, StatusesWithoutBodyGetNoFraming) {
  const auto plan = plan_response(request(http::verb::get, "/status/204"), kNow);
  EXPECT_EQ(plan.head.result_int(), 204u);
  EXPECT_FALSE(plan.send_body);
  EXPECT_EQ(plan.head.count(http::field::content_length), 0u);
}

TEST(HttpDate, ParsesTheThreeFormsOfRfc9110) {
  const auto expected = std::chrono::system_clock::from_time_t(784111777);
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), expected);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), expected);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), expected);
  EXPECT_EQ(format_http_date(expected), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37 UTC"));
  EXPECT_FALSE(parse_http_date("0"));
  EXPECT_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT trailing"));
}

TEST(RequestTarget, ReducesAbsoluteFormAndDecodesTheQuery) {
  const auto t = parse_target("http://origin.test:8080/obj/a%20b?cc=max-age%3D60%2C%20public&x");
  EXPECT_EQ(t.path, "/obj/a%20b");
  EXPECT_EQ(t.params.at("cc"), "max-age=60, public");
  EXPECT_EQ(t.params.at("x"), "");
  EXPECT_EQ(parse_target("http://origin.test").path, "/");
  EXPECT_EQ(percent_decode("100%+%zz%4"), "100%+%zz%4");
}

TEST(EchoFormat, RoundTripsEveryByte) {
  EchoedRequest echoed{"PURGE", "/echo?q=\"x\"", "HTTP/1.1", {{"X-A", "1\t2"}, {"X-A", "3"}}, {}};
  for (int b = 0; b < 256; ++b) echoed.body.push_back(static_cast<char>(b));
  const auto parsed = parse_echo(format_echo(echoed));
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_EQ(parsed->method, echoed.method);
  EXPECT_EQ(parsed->target, echoed.target);
  EXPECT_EQ(parsed->headers, echoed.headers);
  EXPECT_EQ(parsed->body, echoed.body);
  EXPECT_FALSE(parse_echo("{\"method\":1}").ok());
  EXPECT_FALSE(parse_echo("not json").ok());
}

TEST(DeterministicBody, DependsOnPathAndSeedAndAgreesAtAnyOffset) {
  const std::string whole = deterministic_body("/obj/a", "s", 100);
  EXPECT_EQ(whole, deterministic_body("/obj/a", "s", 100));
  EXPECT_NE(whole, deterministic_body("/obj/a", "t", 100));
  EXPECT_NE(whole, deterministic_body("/obj/b", "s", 100));
  std::string middle(37, '\0');
  fill_body(body_key("/obj/a", "s"), 13, middle);
  EXPECT_EQ(middle, whole.substr(13, 37));
}

}  // namespace
}  // namespace sumcache::testing
