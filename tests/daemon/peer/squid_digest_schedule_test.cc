// When a Squid peer's digest is fetched again (docs/interop.md, "Squid as a
// peer of sumcache"): at its Expires, within [min_gap, max_gap], and with an
// exponential backoff after failures.

#include "daemon/peer/squid_digest_schedule.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

using namespace std::chrono_literals;
using std::chrono::sys_seconds;

const sys_seconds kNow{std::chrono::seconds(1'800'000'000)};
const DigestSchedule kSchedule{5s, 30s};

TEST(DigestSchedule, BoundsComeFromTheSummaryCadenceAndExpiry) {
  const DigestSchedule s = digest_schedule(5000ms, 60000ms);
  EXPECT_EQ(s.min_gap, 5s);
  EXPECT_EQ(s.max_gap, 30s);
  // An expiry below twice the interval never puts max_gap under min_gap.
  EXPECT_EQ(digest_schedule(5000ms, 6000ms).max_gap, 5s);
}

// Squid's Expires is its next digest rewrite: fetch then.
TEST(DigestSchedule, NextFetchIsAtExpires) {
  EXPECT_EQ(delay_after_answer(kNow + 12s, kNow, kNow, kSchedule), 12s);
}

// Measured from the Squid's own Date, so skew between the clocks does not count.
TEST(DigestSchedule, ExpiresIsMeasuredFromTheAnswersDate) {
  const sys_seconds squid_clock = kNow - 100s;
  EXPECT_EQ(delay_after_answer(squid_clock + 12s, squid_clock, kNow, kSchedule), 12s);
  EXPECT_EQ(delay_after_answer(kNow + 12s, std::nullopt, kNow, kSchedule), 12s);
}

TEST(DigestSchedule, NeverSoonerThanMinGapNorLaterThanMaxGap) {
  EXPECT_EQ(delay_after_answer(kNow + 1s, kNow, kNow, kSchedule), 5s);
  EXPECT_EQ(delay_after_answer(kNow - 10s, kNow, kNow, kSchedule), 5s);  // already expired
  // Squid's default digest_rewrite_period is an hour: a live Squid's digest
  // is confirmed (304) well before cluster.summary_expiry_ms ages it out.
  EXPECT_EQ(delay_after_answer(kNow + 3600s, kNow, kNow, kSchedule), 30s);
  EXPECT_EQ(delay_after_answer(std::nullopt, kNow, kNow, kSchedule), 5s);
}

TEST(DigestSchedule, FailuresBackOffExponentiallyUpToMaxGap) {
  EXPECT_EQ(delay_after_failure(1, kSchedule), 5s);
  EXPECT_EQ(delay_after_failure(2, kSchedule), 10s);
  EXPECT_EQ(delay_after_failure(3, kSchedule), 20s);
  EXPECT_EQ(delay_after_failure(4, kSchedule), 30s);
  EXPECT_EQ(delay_after_failure(1000, kSchedule), 30s);
}

}  // namespace
}  // namespace sumcache::daemon
