#include "daemon/http/unproven_use.h"

#include <gtest/gtest.h>

#include "tests/daemon/http/http_test_times.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;
using testing::at;

// The watermark at t = s, in ms since the Unix epoch.
std::int64_t ms(std::int64_t s) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(at(s).time_since_epoch()).count();
}

TEST(IsUnproven, OnlyWhatWasReceivedBeforeTheWatermark) {
  EXPECT_TRUE(is_unproven(at(10), ms(11)));
  EXPECT_FALSE(is_unproven(at(12), ms(11)));
  // Whole seconds: a response of the watermark's own second counts as before it.
  EXPECT_TRUE(is_unproven(at(11), ms(11) + 1));
  EXPECT_FALSE(is_unproven(at(11), ms(11)));
}

TEST(IsUnproven, NoWatermarkProvesEverything) {
  EXPECT_FALSE(is_unproven(at(0), 0));
  EXPECT_FALSE(is_unproven(at(100'000), 0));
}

UseResult fresh() { return {UseDecision::serve_fresh, false, seconds{5}}; }

TEST(UnprovenUse, AFreshResponseIsRevalidatedNotServed) {
  const UseResult r = unproven_use(fresh(), true, false);
  EXPECT_EQ(r.decision, UseDecision::revalidate);
  EXPECT_EQ(r.age, seconds{5});
}

TEST(UnprovenUse, WithoutAValidatorItIsFetched) {
  EXPECT_EQ(unproven_use(fresh(), false, false).decision, UseDecision::must_fetch);
}

TEST(UnprovenUse, APeersRequestGets504_Rfc9111_5_2_1_7) {
  EXPECT_EQ(unproven_use(fresh(), true, true).decision, UseDecision::gateway_timeout);
  EXPECT_EQ(unproven_use({UseDecision::revalidate, true, {}}, true, true).decision,
            UseDecision::gateway_timeout);
  EXPECT_EQ(unproven_use({UseDecision::serve_stale, false, {}}, false, true).decision,
            UseDecision::gateway_timeout);
}

TEST(UnprovenUse, StaleServingIsNeverAllowed_Rfc5861) {
  for (const UseDecision d : {UseDecision::serve_stale, UseDecision::serve_stale_while_revalidate,
                              UseDecision::revalidate}) {
    const UseResult r = unproven_use({d, true, {}}, true, false);
    EXPECT_EQ(r.decision, UseDecision::revalidate) << to_string(d);
    EXPECT_FALSE(r.stale_if_error) << to_string(d);
  }
  const UseResult fetch = unproven_use({UseDecision::must_fetch, true, {}}, false, false);
  EXPECT_EQ(fetch.decision, UseDecision::must_fetch);
  EXPECT_FALSE(fetch.stale_if_error);
}

TEST(UnprovenUse, A504StaysA504) {
  EXPECT_EQ(unproven_use({UseDecision::gateway_timeout, false, {}}, true, true).decision,
            UseDecision::gateway_timeout);
}

}  // namespace
}  // namespace sumcache::daemon
