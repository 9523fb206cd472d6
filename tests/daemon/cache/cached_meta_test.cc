#include "daemon/cache/cached_meta.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "daemon/http/use_decision.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;

CachedMeta sample() {
  CachedMeta m;
  m.status = 203;
  m.freshness.response_time = std::chrono::sys_seconds(seconds(1'700'000'000));
  m.freshness.corrected_initial_age = seconds(5);
  m.freshness.freshness_lifetime = seconds(60);
  m.freshness.has_validator = true;
  m.directives.max_age = seconds(60);
  m.directives.stale_if_error = seconds(300);
  m.directives.is_public = true;
  m.vary = "Accept-Encoding";
  return m;
}

TEST(CachedMeta, DecodesWhatItEncodes) {
  const CachedMeta m = sample();
  EXPECT_EQ(decode_meta(encode_meta(m)), m);
}

TEST(CachedMeta, KeepsTheFarthestDatesHttpCanCarry) {
  CachedMeta m = sample();
  // Date: year 9999 and year 1 (RFC 9110 §5.6.7 has four-digit years), and the
  // delta-seconds cap of RFC 9111 §1.2.2.
  m.freshness.response_time = std::chrono::sys_seconds(seconds(253'402'300'799));
  m.freshness.freshness_lifetime = seconds(2'147'483'648);
  EXPECT_EQ(decode_meta(encode_meta(m)), m);
  m.freshness.response_time = std::chrono::sys_seconds(seconds(-62'135'596'800));
  EXPECT_EQ(decode_meta(encode_meta(m)), m);
}

// Found by tests/fuzz/cached_meta_fuzz: such a record decoded, and a hit's
// current_age and decide_use then overflowed (undefined behaviour).
TEST(CachedMeta, RefusesTimesNoEncoderWrites) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  const auto refused = [](auto edit) {
    CachedMeta m = sample();
    edit(m);
    return !decode_meta(encode_meta(m)).has_value();
  };
  EXPECT_TRUE(refused(
      [&](CachedMeta& m) { m.freshness.response_time = std::chrono::sys_seconds(seconds(kMax)); }));
  EXPECT_TRUE(refused([&](CachedMeta& m) {
    m.freshness.response_time = std::chrono::sys_seconds(seconds(-kMax));
  }));
  EXPECT_TRUE(refused([&](CachedMeta& m) { m.freshness.corrected_initial_age = seconds(kMax); }));
  EXPECT_TRUE(refused([](CachedMeta& m) { m.freshness.corrected_initial_age = seconds(-1); }));
  EXPECT_TRUE(refused([&](CachedMeta& m) { m.freshness.freshness_lifetime = seconds(-kMax); }));
  EXPECT_TRUE(refused([&](CachedMeta& m) { m.directives.s_maxage = seconds(kMax); }));
  EXPECT_TRUE(refused([](CachedMeta& m) { m.directives.stale_while_revalidate = seconds(-2); }));
}

TEST(CachedMeta, ADecodedRecordGivesAUseDecision) {
  CachedMeta m = sample();
  m.freshness.corrected_initial_age = seconds(std::int64_t{1} << 40);
  m.freshness.freshness_lifetime = seconds(std::int64_t{1} << 40);
  const auto decoded = decode_meta(encode_meta(m));
  ASSERT_TRUE(decoded.has_value());
  const auto now = std::chrono::sys_seconds(seconds(std::int64_t{1} << 40));
  const UseResult use = decide_use(decoded->freshness, decoded->directives, {}, now);
  EXPECT_GT(use.age, seconds(0));
}

}  // namespace
}  // namespace sumcache::daemon
