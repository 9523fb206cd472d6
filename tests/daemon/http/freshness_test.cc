#include "daemon/http/freshness.h"

#include <gtest/gtest.h>

#include "tests/daemon/http/http_test_times.h"

namespace sumcache::daemon {
namespace {

using std::chrono::hours;
using std::chrono::seconds;
using testing::at;
using testing::date_at;

const HeuristicPolicy kPolicy{};

seconds lifetime(const HeaderList& response, int status = 200,
                 const HeuristicPolicy& policy = kPolicy) {
  return freshness_lifetime(status, response, response_directives(response), at(0), policy);
}

// RFC 9111 §4.2.3, every term: request sent at 100, origin Date 102, Age 10
// from an upstream cache, response received at 105.
TEST(Freshness, AgeCalculationFollowsRfc9111_4_2_3) {
  const HeaderList response = {{"Date", date_at(102)}, {"Age", "10"}};
  // apparent_age = 105 - 102 = 3; response_delay = 105 - 100 = 5;
  // corrected_age_value = 10 + 5 = 15; corrected_initial_age = max(3, 15) = 15.
  EXPECT_EQ(corrected_initial_age(response, {at(100), at(105)}), seconds{15});
  const StoredFreshness stored{at(105), seconds{15}, seconds{60}, false};
  // resident_time = 125 - 105 = 20; current_age = 15 + 20 = 35.
  EXPECT_EQ(current_age(stored, at(125)), seconds{35});
}

// §4: the most recent of two stored responses is the one generated last, an
// upstream cache's Age included: received later but 50 s old loses.
TEST(Freshness, MostRecentIsGeneratedLast_Rfc9111_4) {
  const StoredFreshness older{at(200), seconds{50}, seconds{60}, false};
  const StoredFreshness newer{at(180), seconds{0}, seconds{60}, false};
  EXPECT_EQ(generated_at(older), at(150));
  EXPECT_GT(generated_at(newer), generated_at(older));
}

// §4.2.3: without Age, a Date far behind our clock shows as apparent age.
TEST(Freshness, ApparentAgeWinsWhenLarger) {
  const HeaderList response = {{"Date", date_at(40)}};
  EXPECT_EQ(corrected_initial_age(response, {at(99), at(100)}), seconds{60});
}

// §4.2.3: apparent_age is never negative (origin clock ahead of ours).
TEST(Freshness, DateInTheFutureGivesNoApparentAge) {
  const HeaderList response = {{"Date", date_at(500)}};
  EXPECT_EQ(corrected_initial_age(response, {at(98), at(100)}), seconds{2});
}

// RFC 9110 §6.6.1: no Date (or an invalid one) means the time received.
TEST(Freshness, MissingOrInvalidDateMeansResponseTime) {
  EXPECT_EQ(corrected_initial_age({}, {at(100), at(100)}), seconds{0});
  EXPECT_EQ(corrected_initial_age({{"Date", "yesterday"}}, {at(100), at(100)}), seconds{0});
}

// §5.1: the first member of a list-valued Age; an invalid Age is ignored.
TEST(Freshness, AgeFieldFirstMemberOrIgnored_Rfc9111_5_1) {
  EXPECT_EQ(corrected_initial_age({{"Age", "30, 40"}}, {at(0), at(0)}), seconds{30});
  EXPECT_EQ(corrected_initial_age({{"Age", "-5"}}, {at(0), at(0)}), seconds{0});
  EXPECT_EQ(corrected_initial_age({{"Age", "abc"}}, {at(0), at(0)}), seconds{0});
}

TEST(Freshness, ClockStepsNeverMakeAgeNegative) {
  // Received "before" it was sent: no response delay rather than a negative one.
  EXPECT_EQ(corrected_initial_age({{"Age", "5"}}, {at(10), at(0)}), seconds{5});
  // now before response_time: no resident time.
  const StoredFreshness stored{at(100), seconds{7}, seconds{60}, false};
  EXPECT_EQ(current_age(stored, at(50)), seconds{7});
}

// §4.2.1: s-maxage, then max-age, then Expires - Date, for a shared cache.
TEST(Freshness, SMaxageOverridesMaxAgeWhichOverridesExpires_Rfc9111_4_2_1) {
  const HeaderList all = {
      {"Cache-Control", "max-age=60, s-maxage=30"}, {"Date", date_at(0)}, {"Expires", date_at(90)}};
  EXPECT_EQ(lifetime(all), seconds{30});
  const HeaderList no_s = {
      {"Cache-Control", "max-age=60"}, {"Date", date_at(0)}, {"Expires", date_at(90)}};
  EXPECT_EQ(lifetime(no_s), seconds{60});
  EXPECT_EQ(lifetime({{"Date", date_at(0)}, {"Expires", date_at(90)}}), seconds{90});
}

// RFC 9110 §5.6.7 read tolerantly (http_date.h): an Expires or Date whose
// names have the wrong case still counts; a really invalid one is expired
// (RFC 9111 §5.3).
TEST(Freshness, WrongCaseExpiresAndDateCount_Rfc9110_5_6_7) {
  EXPECT_EQ(lifetime({{"Date", "FRI, 01 MAR 2024 00:00:00 gmt"},
                      {"Expires", "fri, 01 mar 2024 00:01:30 GMT"}}),
            seconds{90});
  EXPECT_EQ(lifetime({{"Date", date_at(0)}, {"Expires", "Fri, 01 Mar 2024 00:01:30 UTC"}}),
            seconds{0});
}

// §4.2.1: Expires minus Date, with the receipt time when Date is missing.
TEST(Freshness, ExpiresCountsFromDateOrReceipt) {
  EXPECT_EQ(lifetime({{"Date", date_at(-100)}, {"Expires", date_at(50)}}), seconds{150});
  EXPECT_EQ(lifetime({{"Expires", date_at(50)}}), seconds{50});
}

// §5.3: an invalid Expires, "0" in particular, is already expired; so is one
// in the past, and two Expires lines (§4.2.1).
TEST(Freshness, InvalidPastOrDuplicateExpiresIsStale_Rfc9111_5_3) {
  const HeaderList modified = {{"Last-Modified", date_at(-100000)}};
  for (const HeaderList& expires :
       {HeaderList{{"Expires", "0"}}, HeaderList{{"Expires", "Thu, 01 Jan 1970 00:00:00"}},
        HeaderList{{"Date", date_at(0)}, {"Expires", date_at(-1)}},
        HeaderList{{"Expires", date_at(60)}, {"Expires", date_at(60)}}}) {
    HeaderList response = expires;
    response.insert(response.end(), modified.begin(), modified.end());
    EXPECT_EQ(lifetime(response), seconds{0});  // and no heuristic either
  }
}

// §4.2.1: an invalid max-age makes the response stale, even with Expires.
TEST(Freshness, InvalidMaxAgeIsStaleNotFreshForever) {
  EXPECT_EQ(lifetime({{"Cache-Control", "max-age=abc"}, {"Expires", date_at(3600)}}), seconds{0});
}

// §4.2.2: 10% of the time since Last-Modified.
TEST(Freshness, HeuristicIsAFractionOfLastModifiedAge_Rfc9111_4_2_2) {
  EXPECT_EQ(lifetime({{"Date", date_at(0)}, {"Last-Modified", date_at(-10000)}}), seconds{1000});
  const HeuristicPolicy fifth{0.2, hours{24}};
  EXPECT_EQ(lifetime({{"Last-Modified", date_at(-10000)}}, 404, fifth), seconds{2000});
}

TEST(Freshness, HeuristicIsCappedByPolicy) {
  const HeaderList old = {{"Date", date_at(0)}, {"Last-Modified", date_at(-100LL * 86400)}};
  EXPECT_EQ(lifetime(old), hours{24});
  EXPECT_EQ(lifetime(old, 200, {0.1, seconds{600}}), seconds{600});
  EXPECT_EQ(lifetime(old, 200, {0.0, seconds{600}}), seconds{0});
}

// §4.2.2: no heuristic with explicit expiry, without Last-Modified, for a
// status that is not heuristically cacheable (unless public), or when
// Last-Modified is not before Date.
TEST(Freshness, HeuristicOnlyWhereAllowed) {
  const HeaderList lm = {{"Date", date_at(0)}, {"Last-Modified", date_at(-10000)}};
  EXPECT_EQ(lifetime({{"Date", date_at(0)}}), seconds{0});
  EXPECT_EQ(lifetime(lm, 302), seconds{0});
  HeaderList public_lm = lm;
  public_lm.push_back({"Cache-Control", "public"});
  EXPECT_EQ(lifetime(public_lm, 302), seconds{1000});
  HeaderList explicit_zero = lm;
  explicit_zero.push_back({"Cache-Control", "max-age=0"});
  EXPECT_EQ(lifetime(explicit_zero), seconds{0});
  EXPECT_EQ(lifetime({{"Date", date_at(0)}, {"Last-Modified", date_at(10)}}), seconds{0});
}

TEST(Freshness, StoredFreshnessGathersEverything) {
  const HeaderList response = {
      {"Date", date_at(0)}, {"Cache-Control", "max-age=300"}, {"Age", "20"}, {"ETag", R"("v1")"}};
  const StoredFreshness s =
      stored_freshness(200, response, response_directives(response), {at(0), at(1)}, kPolicy);
  EXPECT_EQ(s.response_time, at(1));
  EXPECT_EQ(s.corrected_initial_age, seconds{21});
  EXPECT_EQ(s.freshness_lifetime, seconds{300});
  EXPECT_TRUE(s.has_validator);
  const HeaderList lm_only = {{"Last-Modified", date_at(-5)}};
  EXPECT_TRUE(stored_freshness(200, lm_only, {}, {at(0), at(0)}, kPolicy).has_validator);
  EXPECT_FALSE(stored_freshness(200, {}, {}, {at(0), at(0)}, kPolicy).has_validator);
}

}  // namespace
}  // namespace sumcache::daemon
