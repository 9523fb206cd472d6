// Statistical check: the false positive rate measured over 10^6 absent keys
// matches (1 - e^(-kn/m))^k, for bits per key 4..32 and k 1..8. These are the
// values of the classic table (seed 003, from Broder and Mitzenmacher).
#include <gtest/gtest.h>

#include <cmath>

#include "filters/bloom_filter.h"
#include "tests/filters/fpr_keys.h"

namespace sumcache::filters {
namespace {

constexpr std::uint64_t kInserted = kFprInserted;
constexpr std::uint64_t kProbed = kFprProbed;
constexpr double kMinExpectedFalsePositives = 1000;
constexpr double kRelativeTolerance = 0.10;

class BloomFpr : public ::testing::TestWithParam<int> {};

TEST_P(BloomFpr, MeasuredRateMatchesFormula) {
  const int bits_per_key = GetParam();
  const std::vector<Hash128>& hashes = fpr_key_hashes();
  int checked = 0;
  for (std::uint32_t k = 1; k <= 8; ++k) {
    const BloomParams params{kInserted * static_cast<std::uint64_t>(bits_per_key), k};
    const double expected = expected_fpr(params, kInserted);
    if (expected * kProbed < kMinExpectedFalsePositives) continue;
    auto filter = BloomFilter::create(params);
    ASSERT_TRUE(filter.ok());
    for (std::uint64_t i = 0; i < kInserted; ++i) filter->add(hashes[i]);
    std::uint64_t false_positives = 0;
    for (std::uint64_t i = kInserted; i < kInserted + kProbed; ++i) {
      false_positives += filter->contains(hashes[i]) ? 1 : 0;
    }
    const double measured = static_cast<double>(false_positives) / kProbed;
    EXPECT_NEAR(measured / expected, 1.0, kRelativeTolerance)
        << "bits/key " << bits_per_key << " k " << k << ": measured " << measured
        << " expected " << expected;
    ++checked;
  }
  // At 4..13 bits per key some k always has >= 1000 expected false positives.
  if (bits_per_key <= 13) {
    EXPECT_GT(checked, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(BitsPerKey, BloomFpr, ::testing::Range(4, 33));

}  // namespace
}  // namespace sumcache::filters
