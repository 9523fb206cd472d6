#include "daemon/http/cache_control.h"

#include <gtest/gtest.h>

#include "daemon/http/field_value.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;

// RFC 9111 §5.2.2 and RFC 5861: every response directive we act on.
TEST(CacheControl, ParsesEveryResponseDirective) {
  const auto d = parse_response_directives(
      "max-age=60, s-maxage=30, no-store, public, must-revalidate, proxy-revalidate, "
      "no-transform, must-understand, immutable, stale-while-revalidate=10, stale-if-error=20");
  EXPECT_EQ(d.max_age, seconds{60});
  EXPECT_EQ(d.s_maxage, seconds{30});
  EXPECT_TRUE(d.no_store && d.is_public && d.must_revalidate && d.proxy_revalidate);
  EXPECT_TRUE(d.no_transform && d.must_understand && d.immutable);
  EXPECT_EQ(d.stale_while_revalidate, seconds{10});
  EXPECT_EQ(d.stale_if_error, seconds{20});
  EXPECT_FALSE(d.no_cache || d.is_private);
}

// §5.2: names are case-insensitive, arguments may be quoted; we also forgive
// whitespace around "=" and empty list members.
TEST(CacheControl, ToleratesCaseQuotesAndWhitespace) {
  const auto d = parse_response_directives(R"( ,MAX-AGE = "120" ,, Public ,	S-MaxAge=5 )");
  EXPECT_EQ(d.max_age, seconds{120});
  EXPECT_EQ(d.s_maxage, seconds{5});
  EXPECT_TRUE(d.is_public);
}

// §5.2.3: unknown extensions are ignored, known ones still apply.
TEST(CacheControl, IgnoresUnknownDirectives) {
  const auto d = parse_response_directives(R"(community="UCI", x-foo, max-age=7, =5, bar=)");
  EXPECT_EQ(d.max_age, seconds{7});
  EXPECT_FALSE(d.no_store);
}

// §4.2.1: invalid freshness information means stale, not fresh forever.
TEST(CacheControl, InvalidMaxAgeMakesTheResponseStale) {
  for (std::string_view value :
       {"max-age=abc", "max-age=-1", "max-age", "max-age=1.5", "max-age=\"\"", "s-maxage=never"}) {
    const auto d = parse_response_directives(value);
    const auto lifetime = d.s_maxage ? d.s_maxage : d.max_age;
    EXPECT_EQ(lifetime, seconds{0}) << value;
  }
}

// §4.2.1: conflicting duplicates are treated as stale; equal ones are harmless.
TEST(CacheControl, ConflictingDuplicateMaxAgeMakesTheResponseStale) {
  EXPECT_EQ(parse_response_directives("max-age=10, max-age=20").max_age, seconds{0});
  EXPECT_EQ(parse_response_directives("max-age=10, max-age=10").max_age, seconds{10});
  EXPECT_EQ(parse_response_directives("s-maxage=1, s-maxage=abc").s_maxage, seconds{0});
}

// RFC 9111 §1.2.2: an enormous delta-seconds is 2^31, not an overflow.
TEST(CacheControl, HugeMaxAgeClampsTo2Pow31) {
  EXPECT_EQ(parse_response_directives("max-age=99999999999999999999").max_age, kMaxDeltaSeconds);
}

// §5.2.2.4: no-cache may list field names; they are case-insensitive.
TEST(CacheControl, QualifiedNoCacheListsLowerCasedFieldNames) {
  const auto d = parse_response_directives(R"(no-cache="Set-Cookie, X-Trace", max-age=5)");
  EXPECT_FALSE(d.no_cache);
  const std::vector<std::string> expected = {"set-cookie", "x-trace"};
  EXPECT_EQ(d.no_cache_fields, expected);
  EXPECT_EQ(d.max_age, seconds{5});
  // The token form is not to be generated but is accepted (§5.2).
  EXPECT_EQ(parse_response_directives("no-cache=Set-Cookie").no_cache_fields,
            std::vector<std::string>{"set-cookie"});
}

TEST(CacheControl, UnqualifiedOrEmptyNoCacheIsTheFullDirective) {
  EXPECT_TRUE(parse_response_directives("no-cache").no_cache);
  EXPECT_TRUE(parse_response_directives(R"(no-cache="")").no_cache);
  const auto both = parse_response_directives(R"(no-cache="a", no-cache)");
  EXPECT_TRUE(both.no_cache);
  EXPECT_EQ(both.no_cache_fields, std::vector<std::string>{"a"});
}

// §5.2.2.7: private may list field names too.
TEST(CacheControl, QualifiedPrivateListsFieldNames) {
  const auto qualified = parse_response_directives(R"(private="Set-Cookie")");
  EXPECT_FALSE(qualified.is_private);
  EXPECT_EQ(qualified.private_fields, std::vector<std::string>{"set-cookie"});
  EXPECT_TRUE(parse_response_directives("PRIVATE").is_private);
}

// RFC 5861: invalid windows grant nothing; repeats keep the smallest window.
TEST(CacheControl, StaleWindowsIgnoreInvalidAndKeepSmallest) {
  const auto d =
      parse_response_directives("stale-while-revalidate=abc, stale-if-error=60, stale-if-error=30");
  EXPECT_FALSE(d.stale_while_revalidate.has_value());
  EXPECT_EQ(d.stale_if_error, seconds{30});
}

// §5.2.1: every request directive.
TEST(CacheControl, ParsesEveryRequestDirective) {
  const auto r = parse_request_directives(
      "max-age=5, max-stale=7, min-fresh=9, no-cache, no-store, no-transform, only-if-cached, "
      "stale-if-error=11");
  EXPECT_EQ(r.max_age, seconds{5});
  EXPECT_TRUE(r.max_stale);
  EXPECT_EQ(r.max_stale_limit, seconds{7});
  EXPECT_EQ(r.min_fresh, seconds{9});
  EXPECT_TRUE(r.no_cache && r.no_store && r.no_transform && r.only_if_cached);
  EXPECT_EQ(r.stale_if_error, seconds{11});
}

// §5.2.1.2: max-stale without a value accepts any staleness.
TEST(CacheControl, MaxStaleWithoutValueHasNoLimit) {
  const auto r = parse_request_directives("max-stale");
  EXPECT_TRUE(r.max_stale);
  EXPECT_FALSE(r.max_stale_limit.has_value());
  // With a limit as well, the limit wins (the more restrictive reading).
  EXPECT_EQ(parse_request_directives("max-stale, max-stale=10").max_stale_limit, seconds{10});
  // An invalid limit grants nothing.
  EXPECT_FALSE(parse_request_directives("max-stale=soon").max_stale);
}

// §4.2.1 "most restrictive": repeated or invalid request limits.
TEST(CacheControl, RequestDuplicatesResolveToTheMostRestrictive) {
  EXPECT_EQ(parse_request_directives("max-age=50, max-age=10").max_age, seconds{10});
  EXPECT_EQ(parse_request_directives("max-age=oops").max_age, seconds{0});
  EXPECT_EQ(parse_request_directives("min-fresh=5, min-fresh=50").min_fresh, seconds{50});
  EXPECT_FALSE(parse_request_directives("min-fresh=x").min_fresh.has_value());
  EXPECT_EQ(parse_request_directives("max-stale=9, max-stale=3").max_stale_limit, seconds{3});
}

// RFC 9110 §5.3: several Cache-Control lines are one list.
TEST(CacheControl, CombinesSeveralFieldLines) {
  const HeaderList response = {{"Cache-Control", "public"}, {"cache-control", "max-age=3"}};
  const auto d = response_directives(response);
  EXPECT_TRUE(d.is_public);
  EXPECT_EQ(d.max_age, seconds{3});
}

// RFC 9111 §5.4 (RFC 7234 §5.4): Pragma: no-cache only without Cache-Control.
TEST(CacheControl, PragmaNoCacheCountsOnlyWithoutCacheControl) {
  EXPECT_TRUE(request_directives({{"Pragma", "NO-CACHE"}}).no_cache);
  EXPECT_TRUE(request_directives({{"Pragma", "x=1, no-cache"}}).no_cache);
  EXPECT_FALSE(
      request_directives({{"Pragma", "no-cache"}, {"Cache-Control", "max-age=5"}}).no_cache);
  EXPECT_FALSE(request_directives({{"Pragma", "x"}}).no_cache);
}

}  // namespace
}  // namespace sumcache::daemon
