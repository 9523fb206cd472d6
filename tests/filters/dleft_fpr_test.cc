// The d-left counting filter's false positive rate, on the keys of the other
// filters' rate tests (fpr_keys.h: 10^5 added, 10^6 probed as absent):
// - the formula reproduces the paper's figures (Bonomi et al., ESA 2006, as the
//   seed quotes them) and the filter's own estimate from its occupied cells;
// - measured over the 10^6 absent keys, the rate matches
//   1 - (1 - 1/(B 2^r))^n within 10% at the seed's load for every remainder
//   width r with at least 1000 expected false positives (r = 1 to 14);
// - filters sized by for_capacity(n, p) measure at most 1.1 p, and at the
//   seed's load of 6 keys per 8-cell bucket no add overflows.
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <vector>

#include "filters/dleft_counting_filter.h"
#include "filters/filter_params.h"
#include "tests/filters/fpr_keys.h"

namespace sumcache::filters {
namespace {

constexpr std::uint64_t kInserted = kFprInserted;
constexpr std::uint64_t kProbed = kFprProbed;
constexpr double kMinExpectedFalsePositives = 1000;
constexpr double kRelativeTolerance = 0.10;

// The seed's layout for kInserted keys (B = n / 24) with r remainder bits.
DleftParams seed_params(std::uint32_t r) {
  auto params = dleft_params(kInserted, 0.01).value();
  params.remainder_bits = r;
  return params;
}

std::vector<std::uint32_t> measurable_remainders() {
  std::vector<std::uint32_t> result;
  for (std::uint32_t r = 1; r <= kMaxRemainderBits; ++r) {
    if (expected_fpr(seed_params(r), kInserted) * kProbed >= kMinExpectedFalsePositives) {
      result.push_back(r);
    }
  }
  return result;
}

double measured_fpr(DleftCountingFilter& filter) {
  const std::span<const Hash128> all(fpr_key_hashes());
  for (const Hash128& h : all.first(kInserted)) EXPECT_FALSE(filter.add(h));
  std::uint64_t false_positives = 0;
  for (const Hash128& h : all.subspan(kInserted)) false_positives += filter.contains(h) ? 1 : 0;
  return static_cast<double>(false_positives) / kProbed;
}

// The seed's worked comparison: at r = 11 (52/3 bits per key) the dlCBF's rate
// is about 24 * 2^-11 = 0.01172, below the 0.01327 of a counting filter with 9 4-bit
// counters per key (36 bits) and k = 6; at r = 14 (16 bits per cell) 0.00146.
TEST(DleftFprFormula, ReproducesThePapersFigures) {
  const std::uint64_t n = 2'400'000;  // a multiple of 24: B = n / 24 exactly
  auto params = dleft_params(n, 0.01).value();
  ASSERT_EQ(params.buckets, n / 24);
  params.remainder_bits = 11;
  // 24 * 2^-11 is the first-order term of 1 - e^(-24 / 2^11) = 0.01165.
  EXPECT_NEAR(expected_fpr(params, n), 0.01165, 0.00001);
  EXPECT_NEAR(expected_fpr(params, n) / (24.0 / 2048), 1.0, 0.01);
  const double bits_per_key = 4.0 * static_cast<double>(params.buckets) * 8 * (11 + 2) / n;
  EXPECT_NEAR(bits_per_key, 52.0 / 3, 1e-9);
  EXPECT_NEAR(expected_fpr(BloomParams{9 * n, 6}, n), 0.01327, 0.00005);
  params.remainder_bits = 14;
  EXPECT_NEAR(expected_fpr(params, n) / (24.0 / 16384), 1.0, 0.001);
  // For n much smaller than U the formula is n / (B 2^r).
  EXPECT_NEAR(expected_fpr(params, 1) * static_cast<double>(params.buckets) * 16384, 1.0,
              1e-9);
}

// The filter's own estimate is occupied cells / (B 2^r); after n distinct keys
// it agrees with the formula within the spread of the collisions.
TEST(DleftFprFormula, TheFiltersEstimateFollowsItsOccupiedCells) {
  auto filter = DleftCountingFilter::create(seed_params(6)).value();
  const std::span<const Hash128> all(fpr_key_hashes());
  for (const Hash128& h : all.first(kInserted)) ASSERT_FALSE(filter.add(h));
  const double universe = static_cast<double>(filter.params().buckets) * 64;
  EXPECT_DOUBLE_EQ(filter.expected_fpr(), static_cast<double>(filter.occupied_cells()) / universe);
  EXPECT_LT(filter.occupied_cells(), kInserted);  // U = 266,688: fingerprints collide
  EXPECT_NEAR(filter.expected_fpr() / expected_fpr(filter.params(), kInserted), 1.0, 0.01);
}

class DleftFpr : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(DleftFpr, MeasuredRateMatchesTheFormula) {
  const std::uint32_t r = GetParam();
  auto filter = DleftCountingFilter::create(seed_params(r)).value();
  const double expected = expected_fpr(filter.params(), kInserted);
  const double measured = measured_fpr(filter);
  EXPECT_NEAR(measured / expected, 1.0, kRelativeTolerance)
      << "r " << r << ": measured " << measured << " expected " << expected;
  EXPECT_EQ(filter.refused_adds(), 0U);
}

INSTANTIATE_TEST_SUITE_P(RemainderBits, DleftFpr, ::testing::ValuesIn(measurable_remainders()),
                         ::testing::PrintToStringParamName());

TEST(DleftFprCoverage, RemaindersOneToFourteenAreMeasured) {
  std::vector<std::uint32_t> one_to_fourteen;
  for (std::uint32_t r = 1; r <= 14; ++r) one_to_fourteen.push_back(r);
  EXPECT_EQ(measurable_remainders(), one_to_fourteen);
}

TEST(DleftForCapacity, MeasuredRateIsAtMostTheTarget) {
  for (double p : {0.01, 0.001}) {
    auto filter = DleftCountingFilter::for_capacity(kInserted, p).value();
    const double measured = measured_fpr(filter);
    EXPECT_LE(measured, p * 1.1) << "p " << p << ": measured " << measured << " with "
                                 << static_cast<double>(filter.memory_bytes()) * 8 / kInserted
                                 << " bits per key";
    EXPECT_EQ(filter.refused_adds(), 0U);
  }
}

}  // namespace
}  // namespace sumcache::filters
