// fingerprint(), fingerprint_universe() and fingerprint_fpr(): the universe
// U = ceil(n / p) and its checks, the rate 1 - (1 - 1/U)^n.
#include "filters/fingerprint.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

TEST(FingerprintUniverse, IsNOverPRoundedUp) {
  EXPECT_EQ(fingerprint_universe(1'000'000, 0.0024).value(), 416'666'667U);
  EXPECT_EQ(fingerprint_universe(1000, 0.5).value(), 2000U);
  EXPECT_EQ(fingerprint_universe(1, 0.999).value(), 2U);
}

TEST(FingerprintUniverse, RefusesBadParameters) {
  EXPECT_EQ(fingerprint_universe(0, 0.01).error(), FilterErrc::invalid_entries);
  EXPECT_EQ(fingerprint_universe(10, 0.0).error(), FilterErrc::invalid_fpr);
  EXPECT_EQ(fingerprint_universe(10, 1.0).error(), FilterErrc::invalid_fpr);
  EXPECT_EQ(fingerprint_universe(10, -0.1).error(), FilterErrc::invalid_fpr);
  EXPECT_EQ(fingerprint_universe(10, std::numeric_limits<double>::quiet_NaN()).error(),
            FilterErrc::invalid_fpr);
  EXPECT_EQ(fingerprint_universe(kMaxUniverse / 2, 0.4).error(), FilterErrc::invalid_bits);
  EXPECT_EQ(fingerprint_universe(kMaxUniverse / 2, 0.5).value(), kMaxUniverse);
}

TEST(FingerprintFpr, MatchesTheFormula) {
  EXPECT_EQ(fingerprint_fpr(0, 100), 0.0);
  EXPECT_EQ(fingerprint_fpr(5, 1), 1.0);
  EXPECT_NEAR(fingerprint_fpr(1, 4), 0.25, 1e-15);
  EXPECT_NEAR(fingerprint_fpr(2, 4), 1 - 0.75 * 0.75, 1e-15);
  // n/U small: about n/U, a little below.
  const double p = fingerprint_fpr(1'000'000, 416'666'667);
  EXPECT_LT(p, 0.0024);
  EXPECT_GT(p, 0.0024 * 0.998);
  EXPECT_NEAR(fingerprint_fpr(1, kMaxUniverse), std::ldexp(1.0, -40), 1e-25);
}

TEST(Fingerprint, IsTheOneProbeOfAK1BloomFilter) {
  const Hash128 h = Hasher{}("http://example.com/");
  EXPECT_EQ(fingerprint(h, 1000), ProbeSequence(h, 1000).next());
  EXPECT_EQ(fingerprint(h, 1), 0U);
  EXPECT_LT(fingerprint(h, kMaxUniverse), kMaxUniverse);
}

}  // namespace
}  // namespace sumcache::filters
