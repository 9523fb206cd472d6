#include "daemon/http/targeted_cache_control.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "daemon/http/cacheability.h"
#include "daemon/http/field_value.h"
#include "daemon/http/freshness.h"
#include "tests/daemon/http/http_test_times.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;
using testing::at;
using testing::date_at;

const std::vector<std::string> kCdn{"CDN-Cache-Control"};

ResponseDirectives effective(const HeaderList& response,
                             const std::vector<std::string>& targeted = kCdn) {
  return effective_response_directives(response, targeted);
}

seconds lifetime(const HeaderList& response, int status = 200) {
  return freshness_lifetime(status, response, effective(response), at(0), HeuristicPolicy{});
}

StoreReason store_reason(const HeaderList& response, int status = 200) {
  const HeaderList request;
  const RequestDirectives request_directives;
  const ResponseDirectives directives = effective(response);
  return storability({"GET", request, request_directives, status, response, directives, 1 << 20});
}

// RFC 9213 §2.1: the directives a cache using a targeted field MUST
// implement (max-age, must-revalidate, no-store, no-cache, private) and the
// others it SHOULD implement as it does for Cache-Control.
TEST(TargetedCacheControl, MapsEveryDirectiveRfc9213_2_1) {
  const auto d = parse_targeted_directives(
      "max-age=60, s-maxage=30, must-revalidate, no-store, no-cache, private, public, "
      "proxy-revalidate, no-transform, must-understand, immutable, stale-while-revalidate=10, "
      "stale-if-error=20");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->max_age, seconds{60});
  EXPECT_EQ(d->s_maxage, seconds{30});
  EXPECT_TRUE(d->must_revalidate && d->no_store && d->no_cache && d->is_private);
  EXPECT_TRUE(d->is_public && d->proxy_revalidate && d->no_transform && d->must_understand &&
              d->immutable);
  EXPECT_EQ(d->stale_while_revalidate, seconds{10});
  EXPECT_EQ(d->stale_if_error, seconds{20});
  EXPECT_TRUE(d->from_targeted_field);
}

// RFC 9213 §2.1: a quoted-string argument maps to a String: the qualified
// forms of no-cache and private (RFC 9111 §5.2.2.4, §5.2.2.7).
TEST(TargetedCacheControl, QualifiedNoCacheAndPrivateRfc9213_2_1) {
  const auto d = parse_targeted_directives(R"(no-cache="Set-Cookie, X-A", private="X-B")");
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->no_cache || d->is_private);
  EXPECT_EQ(d->no_cache_fields, (std::vector<std::string>{"set-cookie", "x-a"}));
  EXPECT_EQ(d->private_fields, (std::vector<std::string>{"x-b"}));
}

// RFC 9213 §2.1 (Integer) and RFC 9111 §1.2.2: a delta-seconds beyond 2^31
// is 2^31, as for Cache-Control.
TEST(TargetedCacheControl, LargeMaxAgeClampsRfc9111_1_2_2) {
  EXPECT_EQ(parse_targeted_directives("max-age=2147483648")->max_age, kMaxDeltaSeconds);
  EXPECT_EQ(parse_targeted_directives("max-age=99999999999")->max_age, kMaxDeltaSeconds);
}

// RFC 9213 §2.2: an empty or unparsable field is ignored; RFC 8941 is strict
// about spaces around "=" and about upper-case keys.
TEST(TargetedCacheControl, EmptyOrInvalidFieldIsIgnoredRfc9213_2_2) {
  for (const char* bad :
       {"", "max-age =100", "max-age= 100", "MaX-aGe=3600", "max-age=10000, &&&&&"}) {
    EXPECT_FALSE(parse_targeted_directives(bad).has_value()) << bad;
  }
}

// RFC 9213 §2.1: values of the wrong type are not consumed; we ignore the
// whole field then, so that no half of it overrides Cache-Control.
TEST(TargetedCacheControl, WrongTypeIgnoresTheFieldRfc9213_2_1) {
  for (const char* bad : {R"(max-age="10000")", "max-age=1.5", "max-age=-1", "max-age=(1)",
                          "no-store=?0", "no-store=1", "private=tok", "must-revalidate=\"x\""}) {
    EXPECT_FALSE(parse_targeted_directives(bad).has_value()) << bad;
  }
}

// RFC 9213 §2.1: parameters and unknown directives are ignored, whatever
// their value; an unknown directive alone still makes a valid field.
TEST(TargetedCacheControl, UnknownDirectivesAndParametersAreIgnoredRfc9213_2_1) {
  const auto d = parse_targeted_directives(R"(foobar, max-age=3600;x=1, ext=("a" b))");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->max_age, seconds{3600});
  const auto none = parse_targeted_directives("none");
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->max_age.has_value());
}

// RFC 8941 §4.2.2: of a repeated key only the last counts, even when an
// earlier one had the wrong type.
TEST(TargetedCacheControl, LastOfARepeatedKeyCountsRfc8941_4_2_2) {
  EXPECT_EQ(parse_targeted_directives(R"(max-age="1", max-age=5)")->max_age, seconds{5});
  EXPECT_FALSE(parse_targeted_directives(R"(max-age=5, max-age="1")").has_value());
}

// RFC 9213 §2.2: the first field of the list with a valid, non-empty value
// wins; an invalid one falls to the next, and then to Cache-Control.
TEST(TargetedCacheControl, FirstValidFieldInListOrderRfc9213_2_2) {
  const std::vector<std::string> both{"Sumcache-Cache-Control", "CDN-Cache-Control"};
  const HeaderList response = {{"Cache-Control", "max-age=1"},
                               {"CDN-Cache-Control", "max-age=20"},
                               {"Sumcache-Cache-Control", "max-age=300"}};
  EXPECT_EQ(effective(response, both).max_age, seconds{300});
  const HeaderList invalid_first = {{"Cache-Control", "max-age=1"},
                                    {"CDN-Cache-Control", "max-age=20"},
                                    {"Sumcache-Cache-Control", "max-age = 300"}};
  EXPECT_EQ(effective(invalid_first, both).max_age, seconds{20});
  const HeaderList empty_first = {{"Cache-Control", "max-age=1"},
                                  {"CDN-Cache-Control", "max-age=20"},
                                  {"Sumcache-Cache-Control", ""}};
  EXPECT_EQ(effective(empty_first, both).max_age, seconds{20});
  const HeaderList all_invalid = {{"Cache-Control", "max-age=1"},
                                  {"CDN-Cache-Control", "max-age=\"20\""}};
  const auto fallback = effective(all_invalid, both);
  EXPECT_EQ(fallback.max_age, seconds{1});
  EXPECT_FALSE(fallback.from_targeted_field);
}

// RFC 9213 §2.2: an invalid field is ignored; the proxy is told which one,
// to count and log it. An empty one is ignored too, but is no typo.
TEST(TargetedCacheControl, ReportsTheFirstInvalidFieldRfc9213_2_2) {
  const std::vector<std::string> both{"Sumcache-Cache-Control", "CDN-Cache-Control"};
  const auto invalid = choose_response_directives(
      {{"Sumcache-Cache-Control", "MaX-aGe=1"}, {"CDN-Cache-Control", "max-age=5"}}, both);
  EXPECT_EQ(invalid.invalid_field, "Sumcache-Cache-Control");
  EXPECT_EQ(invalid.directives.max_age, seconds{5});
  const auto both_invalid = choose_response_directives(
      {{"Sumcache-Cache-Control", "a b"}, {"CDN-Cache-Control", "max-age=\"5\""}}, both);
  EXPECT_EQ(both_invalid.invalid_field, "Sumcache-Cache-Control");
  EXPECT_FALSE(both_invalid.directives.from_targeted_field);
  EXPECT_EQ(choose_response_directives({{"Sumcache-Cache-Control", " "}}, both).invalid_field, "");
  EXPECT_EQ(choose_response_directives({{"CDN-Cache-Control", "max-age=5"}}, both).invalid_field,
            "");
  EXPECT_EQ(choose_response_directives({{"Cache-Control", "max-age=5"}}, both).invalid_field, "");
}

// RFC 9213 §2.2: fields not on the cache's list change nothing; an empty
// list turns the feature off.
TEST(TargetedCacheControl, UnlistedFieldsChangeNothingRfc9213_2_2) {
  const HeaderList response = {{"Cache-Control", "max-age=1"},
                               {"CDN-Cache-Control", "max-age=3600"},
                               {"Other-Cache-Control", "no-store"}};
  EXPECT_EQ(effective(response, {}).max_age, seconds{1});
  EXPECT_EQ(effective(response, {"Other-Cache-Control"}).no_store, true);
  EXPECT_EQ(effective(response, {"Other-Cache-Control"}).max_age, std::nullopt);
}

// RFC 8941 §4.2: field lines are combined with commas before parsing.
TEST(TargetedCacheControl, SeveralLinesAreOneDictionaryRfc8941_4_2) {
  const HeaderList response = {{"CDN-Cache-Control", "max-age=60"},
                               {"cdn-cache-control", "must-revalidate"}};
  const auto d = effective(response);
  EXPECT_EQ(d.max_age, seconds{60});
  EXPECT_TRUE(d.must_revalidate);
}

// RFC 9213 §2.2: the cache MUST ignore Cache-Control and Expires; a short
// targeted max-age beats a long Cache-Control one and the other way round.
TEST(TargetedCacheControl, TargetedFreshnessReplacesCacheControlRfc9213_2_2) {
  EXPECT_EQ(lifetime({{"Cache-Control", "max-age=3600"}, {"CDN-Cache-Control", "max-age=1"}}),
            seconds{1});
  EXPECT_EQ(lifetime({{"Cache-Control", "max-age=1"}, {"CDN-Cache-Control", "max-age=3600"}}),
            seconds{3600});
  EXPECT_EQ(lifetime({{"Cache-Control", "s-maxage=3600"}, {"CDN-Cache-Control", "max-age=1"}}),
            seconds{1});
}

// RFC 9213 §2.2: Expires is ignored, past, future or invalid, when a
// targeted field was chosen; without an explicit lifetime there it is 0.
TEST(TargetedCacheControl, ExpiresIsIgnoredRfc9213_2_2) {
  EXPECT_EQ(lifetime({{"Date", date_at(0)},
                      {"Expires", date_at(-10000)},
                      {"CDN-Cache-Control", "max-age=3600"}}),
            seconds{3600});
  EXPECT_EQ(
      lifetime({{"Date", date_at(0)}, {"Expires", "0"}, {"CDN-Cache-Control", "max-age=3600"}}),
      seconds{3600});
  EXPECT_EQ(
      lifetime(
          {{"Date", date_at(0)}, {"Expires", date_at(10000)}, {"CDN-Cache-Control", "max-age=0"}}),
      seconds{0});
  EXPECT_EQ(
      lifetime({{"Date", date_at(0)}, {"Expires", date_at(10000)}, {"CDN-Cache-Control", "foo"}}),
      seconds{0});
  // A status that is not heuristically cacheable: Expires alone no longer
  // gives it the freshness information RFC 9111 §3 asks for.
  EXPECT_EQ(store_reason({{"Expires", date_at(10000)}, {"CDN-Cache-Control", "foo"}}, 302),
            StoreReason::no_freshness_info);
  EXPECT_EQ(store_reason({{"Expires", date_at(10000)}}, 302), StoreReason::storable);
}

// RFC 9213 §2.2 with RFC 9111 §3: storability follows the targeted field,
// not Cache-Control.
TEST(TargetedCacheControl, StorabilityFollowsTheTargetedFieldRfc9213_2_2) {
  EXPECT_EQ(store_reason({{"Cache-Control", "max-age=10000"}, {"CDN-Cache-Control", "no-store"}}),
            StoreReason::no_store_response);
  EXPECT_EQ(store_reason({{"Cache-Control", "max-age=10000"}, {"CDN-Cache-Control", "private"}}),
            StoreReason::private_response);
  EXPECT_EQ(store_reason({{"Cache-Control", "no-store"}, {"CDN-Cache-Control", "max-age=10000"}}),
            StoreReason::storable);
  // An invalid targeted field leaves Cache-Control in charge.
  EXPECT_EQ(
      store_reason({{"Cache-Control", "no-store"}, {"CDN-Cache-Control", "max-age=10000, &&&&&"}}),
      StoreReason::no_store_response);
  EXPECT_EQ(
      store_reason({{"Cache-Control", "no-store"}, {"CDN-Cache-Control", "max-age=\"10000\""}}),
      StoreReason::no_store_response);
}

}  // namespace
}  // namespace sumcache::daemon
