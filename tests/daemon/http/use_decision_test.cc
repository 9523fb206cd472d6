#include "daemon/http/use_decision.h"

#include <gtest/gtest.h>

#include "tests/daemon/http/http_test_times.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;
using testing::at;

// A response stored at t=0 with age 0 and the given lifetime; used at t=age.
UseResult use(std::int64_t lifetime, std::int64_t age, std::string_view response_cc = "",
              std::string_view request_cc = "", bool has_validator = true) {
  const StoredFreshness stored{at(0), seconds{0}, seconds{lifetime}, has_validator};
  return decide_use(stored, parse_response_directives(response_cc),
                    parse_request_directives(request_cc), at(age));
}

UseDecision decision(std::int64_t lifetime, std::int64_t age, std::string_view response_cc = "",
                     std::string_view request_cc = "") {
  return use(lifetime, age, response_cc, request_cc).decision;
}

// RFC 9111 §4.2: fresh while the lifetime exceeds the age.
TEST(UseDecision, FreshResponseIsServed_Rfc9111_4_2) {
  const UseResult r = use(100, 40);
  EXPECT_EQ(r.decision, UseDecision::serve_fresh);
  EXPECT_EQ(r.age, seconds{40});
  EXPECT_FALSE(r.stale_if_error);
  EXPECT_EQ(decision(100, 99), UseDecision::serve_fresh);
  EXPECT_EQ(decision(100, 100), UseDecision::revalidate);  // age == lifetime: stale
}

TEST(UseDecision, AgeIncludesTheInitialAge) {
  const StoredFreshness stored{at(0), seconds{50}, seconds{60}, true};
  const UseResult r = decide_use(stored, {}, {}, at(15));
  EXPECT_EQ(r.age, seconds{65});
  EXPECT_EQ(r.decision, UseDecision::revalidate);
}

// RFC 9111 §4.3.1: stale with a validator -> conditional request; without
// one there is nothing to make it conditional on.
TEST(UseDecision, StaleResponseIsRevalidatedOrFetched) {
  EXPECT_EQ(decision(10, 20), UseDecision::revalidate);
  EXPECT_EQ(use(10, 20, "", "", false).decision, UseDecision::must_fetch);
  EXPECT_EQ(use(0, 0, "", "", false).decision, UseDecision::must_fetch);
}

// RFC 9111 §5.2.2.4: no-cache forces validation even while fresh.
TEST(UseDecision, ResponseNoCacheAlwaysRevalidates_Rfc9111_5_2_2_4) {
  EXPECT_EQ(decision(3600, 1, "no-cache, max-age=3600"), UseDecision::revalidate);
  EXPECT_EQ(decision(3600, 1, "no-cache", "max-stale"), UseDecision::revalidate);
}

// RFC 9111 §5.2.1.4: so does the request's no-cache.
TEST(UseDecision, RequestNoCacheRevalidates_Rfc9111_5_2_1_4) {
  EXPECT_EQ(decision(3600, 1, "", "no-cache"), UseDecision::revalidate);
}

// RFC 9111 §5.2.1.1: the client's max-age bounds the age it accepts.
TEST(UseDecision, RequestMaxAgeBoundsTheAge_Rfc9111_5_2_1_1) {
  EXPECT_EQ(decision(3600, 30, "", "max-age=30"), UseDecision::serve_fresh);
  EXPECT_EQ(decision(3600, 31, "", "max-age=30"), UseDecision::revalidate);
  EXPECT_EQ(decision(3600, 1, "", "max-age=0"), UseDecision::revalidate);
}

// RFC 9111 §5.2.1.3: min-fresh asks for remaining freshness.
TEST(UseDecision, MinFreshAsksForRemainingLifetime_Rfc9111_5_2_1_3) {
  EXPECT_EQ(decision(100, 90, "", "min-fresh=10"), UseDecision::serve_fresh);
  EXPECT_EQ(decision(100, 91, "", "min-fresh=10"), UseDecision::revalidate);
  EXPECT_EQ(decision(100, 120, "", "min-fresh=0, max-stale"), UseDecision::revalidate);
}

// RFC 9111 §5.2.1.2: max-stale without a value accepts any staleness.
TEST(UseDecision, MaxStaleWithoutValueAcceptsAnyStaleness_Rfc9111_5_2_1_2) {
  EXPECT_EQ(decision(10, 1'000'000, "", "max-stale"), UseDecision::serve_stale);
}

TEST(UseDecision, MaxStaleWithLimitAcceptsThatMuchStaleness) {
  EXPECT_EQ(decision(10, 40, "", "max-stale=30"), UseDecision::serve_stale);
  EXPECT_EQ(decision(10, 41, "", "max-stale=30"), UseDecision::revalidate);
  // The request's max-age still applies to a stale response.
  EXPECT_EQ(decision(10, 40, "", "max-stale=30, max-age=20"), UseDecision::revalidate);
}

// RFC 9111 §5.2.2.2, §5.2.2.8, §5.2.2.10: once stale, must-revalidate,
// proxy-revalidate and s-maxage forbid serving without validation.
TEST(UseDecision, RevalidationDirectivesOverrideMaxStale_Rfc9111_4_2_4) {
  EXPECT_EQ(decision(10, 20, "must-revalidate", "max-stale"), UseDecision::revalidate);
  EXPECT_EQ(decision(10, 20, "proxy-revalidate", "max-stale"), UseDecision::revalidate);
  EXPECT_EQ(decision(10, 20, "s-maxage=10", "max-stale"), UseDecision::revalidate);
  EXPECT_EQ(decision(10, 5, "must-revalidate", "max-stale"), UseDecision::serve_fresh);
}

// RFC 5861 §3: within the window, serve stale and revalidate in the background.
TEST(UseDecision, StaleWhileRevalidateWindow_Rfc5861_3) {
  EXPECT_EQ(decision(60, 61, "max-age=60, stale-while-revalidate=30"),
            UseDecision::serve_stale_while_revalidate);
  EXPECT_EQ(decision(60, 90, "max-age=60, stale-while-revalidate=30"),
            UseDecision::serve_stale_while_revalidate);
  EXPECT_EQ(decision(60, 91, "max-age=60, stale-while-revalidate=30"), UseDecision::revalidate);
  EXPECT_EQ(decision(60, 30, "max-age=60, stale-while-revalidate=30"), UseDecision::serve_fresh);
}

// RFC 9111 §4.2.4 wins over RFC 5861; a client demanding validation too.
TEST(UseDecision, StaleWhileRevalidateYieldsToExplicitDemands) {
  EXPECT_EQ(decision(60, 70, "must-revalidate, stale-while-revalidate=30"),
            UseDecision::revalidate);
  EXPECT_EQ(decision(60, 70, "stale-while-revalidate=30", "max-age=0"), UseDecision::revalidate);
  EXPECT_EQ(decision(60, 70, "stale-while-revalidate=30", "no-cache"), UseDecision::revalidate);
}

// RFC 5861 §4: stale-if-error from the response or from the request allows
// falling back to the stored response when the upstream fails.
TEST(UseDecision, StaleIfErrorAllowsFallback_Rfc5861_4) {
  EXPECT_TRUE(use(60, 100, "stale-if-error=60").stale_if_error);
  EXPECT_FALSE(use(60, 121, "stale-if-error=60").stale_if_error);
  EXPECT_TRUE(use(60, 100, "", "stale-if-error=40").stale_if_error);
  EXPECT_TRUE(use(60, 100, "stale-if-error=10", "stale-if-error=40").stale_if_error);
  EXPECT_FALSE(use(60, 100).stale_if_error);
  EXPECT_TRUE(use(60, 100, "stale-if-error=60", "", false).stale_if_error);  // must_fetch
}

TEST(UseDecision, StaleIfErrorYieldsToRevalidationDirectives_Rfc9111_4_2_4) {
  EXPECT_FALSE(use(60, 100, "must-revalidate, stale-if-error=600").stale_if_error);
  EXPECT_FALSE(use(60, 100, "s-maxage=60, stale-if-error=600").stale_if_error);
  EXPECT_FALSE(use(600, 1, "no-cache, stale-if-error=600").stale_if_error);
}

// RFC 9111 §5.2.1.7: only-if-cached answers from the store or with 504.
TEST(UseDecision, OnlyIfCachedNeverGoesUpstream_Rfc9111_5_2_1_7) {
  EXPECT_EQ(decision(60, 10, "", "only-if-cached"), UseDecision::serve_fresh);
  EXPECT_EQ(decision(60, 70, "", "only-if-cached"), UseDecision::gateway_timeout);
  EXPECT_EQ(decision(60, 70, "", "only-if-cached, max-stale"), UseDecision::serve_stale);
  EXPECT_EQ(decision(60, 70, "stale-while-revalidate=60", "only-if-cached"),
            UseDecision::serve_stale_while_revalidate);
  EXPECT_FALSE(use(60, 70, "stale-if-error=60", "only-if-cached").stale_if_error);
}

TEST(UseDecision, DecisionsHaveNamesForLogs) {
  EXPECT_EQ(to_string(UseDecision::serve_fresh), "serve_fresh");
  EXPECT_EQ(to_string(UseDecision::serve_stale_while_revalidate), "serve_stale_while_revalidate");
  EXPECT_EQ(to_string(UseDecision::gateway_timeout), "gateway_timeout");
}

// RFC 5861 §4: an error is a 500, 502, 503 or 504; a 501 is the origin's
// answer about the method and reaches the client.
TEST(UseDecision, StaleIfErrorCoversOnly500And502To504_Rfc5861_4) {
  for (unsigned status : {500U, 502U, 503U, 504U}) {
    EXPECT_TRUE(is_stale_if_error_status(status)) << status;
  }
  for (unsigned status : {200U, 304U, 404U, 499U, 501U, 505U, 599U}) {
    EXPECT_FALSE(is_stale_if_error_status(status)) << status;
  }
}

}  // namespace
}  // namespace sumcache::daemon
