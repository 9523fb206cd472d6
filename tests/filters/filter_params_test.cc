#include "filters/filter_params.h"

#include <gtest/gtest.h>

#include <cmath>

#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

TEST(FilterParams, OptimalParamsMatchTheClassicFormula) {
  // n = 10^6, p = 1%: m = 9,585,059 bits (9.59 bits per key), k = 7.
  auto params = optimal_params(1'000'000, 0.01);
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(params->m, 9'585'059U);
  EXPECT_EQ(params->k, 7U);
  // p = 0.1%: 14.38 bits per key, k = 10.
  auto tight = optimal_params(1'000'000, 0.001);
  ASSERT_TRUE(tight.ok());
  EXPECT_EQ(tight->m, 14'377'588U);
  EXPECT_EQ(tight->k, 10U);
}

TEST(FilterParams, OptimalParamsMeetTheTarget) {
  for (double p : {0.5, 0.1, 0.01, 0.001, 1e-6}) {
    auto params = optimal_params(12345, p);
    ASSERT_TRUE(params.ok());
    EXPECT_LE(expected_fpr(*params, 12345), p * 1.01) << p;
  }
}

TEST(FilterParams, InvalidTargetsAreErrorsNotClamps) {
  EXPECT_EQ(optimal_params(0, 0.01).error(), FilterErrc::invalid_entries);
  EXPECT_EQ(optimal_params(10, 0.0).error(), FilterErrc::invalid_fpr);
  EXPECT_EQ(optimal_params(10, 1.0).error(), FilterErrc::invalid_fpr);
  EXPECT_EQ(optimal_params(10, -0.5).error(), FilterErrc::invalid_fpr);
  EXPECT_EQ(optimal_params(10, std::nan("")).error(), FilterErrc::invalid_fpr);
  EXPECT_EQ(optimal_params(~0ULL, 1e-9).error(), FilterErrc::size_overflow);
  EXPECT_EQ(params_for_load(0, 8).error(), FilterErrc::invalid_entries);
  EXPECT_EQ(params_for_load(10, 0).error(), FilterErrc::invalid_bits);
  EXPECT_EQ(params_for_load(10, INFINITY).error(), FilterErrc::invalid_bits);
  EXPECT_EQ(params_for_load(10, 8, 33).error(), FilterErrc::invalid_hashes);
  EXPECT_EQ(params_for_load(~0ULL, 1e6).error(), FilterErrc::size_overflow);
}

TEST(FilterParams, ValidateChecksBothBounds) {
  EXPECT_FALSE(validate({64, 4}));
  EXPECT_EQ(validate({0, 4}), FilterErrc::invalid_bits);
  EXPECT_EQ(validate({kMaxBits + 1, 4}), FilterErrc::invalid_bits);
  EXPECT_EQ(validate({64, 0}), FilterErrc::invalid_hashes);
  EXPECT_EQ(validate({64, kMaxHashes + 1}), FilterErrc::invalid_hashes);
}

TEST(FilterParams, LoadGivesSummaryCacheDefaults) {
  // Summary Cache: 16 bits per document with k = 4 gives about 0.24%.
  auto params = params_for_load(1000, 16, 4);
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(params->m, 16000U);
  EXPECT_NEAR(expected_fpr(*params, 1000), 0.0024, 0.0001);
  EXPECT_EQ(params_for_load(1000, 16)->k, 11U);  // round(16 ln 2)
}

TEST(FilterParams, FillEstimatesInvertTheExpectation) {
  const BloomParams params{100'000, 5};
  // Expected set bits after n insertions: m (1 - e^(-kn/m)).
  const double n = 8000;
  const auto set_bits = static_cast<std::uint64_t>(
      std::llround(100'000 * -std::expm1(-5 * n / 100'000)));
  EXPECT_NEAR(estimate_cardinality(params, set_bits), n, 1.0);
  EXPECT_NEAR(fpr_from_fill(params, set_bits), expected_fpr(params, 8000), 1e-6);
  EXPECT_TRUE(std::isinf(estimate_cardinality(params, 100'000)));
  EXPECT_EQ(estimate_cardinality(params, 0), 0.0);
}

}  // namespace
}  // namespace sumcache::filters
