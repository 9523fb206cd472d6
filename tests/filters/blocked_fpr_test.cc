// Statistical check of the blocked filter's own formula (Putze, Sanders and
// Singler 2007): the false positive rate measured over 10^6 absent keys
// matches BlockedBloomFilter::expected_fpr within 10%, at every bits per key
// from 4 to 32 where at least 1000 false positives are expected (4 to 16);
// and filters sized by for_capacity(n, p) measure at most 1.1 p.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "filters/blocked_bloom_filter.h"
#include "tests/filters/fpr_keys.h"

namespace sumcache::filters {
namespace {

constexpr std::uint64_t kInserted = kFprInserted;
constexpr std::uint64_t kProbed = kFprProbed;
constexpr double kMinExpectedFalsePositives = 1000;
constexpr double kRelativeTolerance = 0.10;

std::uint64_t blocks_for(int bits_per_key) {
  return static_cast<std::uint64_t>(
      std::llround(static_cast<double>(kInserted) * bits_per_key / kBlockBits));
}

// Bits per key in [4, 32] where enough false positives are expected to measure the rate.
std::vector<int> measurable_bits_per_key() {
  std::vector<int> result;
  for (int bits_per_key = 4; bits_per_key <= 32; ++bits_per_key) {
    const double expected = BlockedBloomFilter::expected_fpr(blocks_for(bits_per_key), kInserted);
    if (expected * kProbed >= kMinExpectedFalsePositives) result.push_back(bits_per_key);
  }
  return result;
}

// Keys 0 .. kInserted-1 are added, the next kProbed are absent (fpr_keys.h).
class BlockedFprKeys : public ::testing::Test {
 protected:

  static double measured_fpr(BlockedBloomFilter& filter) {
    const std::span<const Hash128> all(fpr_key_hashes());
    for (const Hash128& h : all.first(kInserted)) filter.add(h);
    auto answers = std::make_unique<bool[]>(kProbed);
    EXPECT_FALSE(filter.contains_batch(all.subspan(kInserted), {answers.get(), kProbed}));
    std::uint64_t false_positives = 0;
    for (std::uint64_t i = 0; i < kProbed; ++i) false_positives += answers[i] ? 1 : 0;
    return static_cast<double>(false_positives) / kProbed;
  }

};

class BlockedFpr : public BlockedFprKeys, public ::testing::WithParamInterface<int> {};

TEST_P(BlockedFpr, MeasuredRateMatchesTheBlockedFormula) {
  const int bits_per_key = GetParam();
  auto filter = BlockedBloomFilter::create(blocks_for(bits_per_key));
  ASSERT_TRUE(filter.ok());
  const double expected = BlockedBloomFilter::expected_fpr(filter->num_blocks(), kInserted);
  const double measured = measured_fpr(*filter);
  EXPECT_NEAR(measured / expected, 1.0, kRelativeTolerance)
      << "bits/key " << bits_per_key << ": measured " << measured << " expected " << expected;
}

INSTANTIATE_TEST_SUITE_P(BitsPerKey, BlockedFpr, ::testing::ValuesIn(measurable_bits_per_key()),
                         ::testing::PrintToStringParamName());

TEST(BlockedFprCoverage, BitsPerKeyFourToSixteenAreMeasured) {
  std::vector<int> four_to_sixteen;
  for (int b = 4; b <= 16; ++b) four_to_sixteen.push_back(b);
  EXPECT_EQ(measurable_bits_per_key(), four_to_sixteen);
}

class BlockedForCapacity : public BlockedFprKeys {};

TEST_F(BlockedForCapacity, MeasuredRateIsAtMostTheTarget) {
  for (double p : {0.01, 0.001}) {
    auto filter = BlockedBloomFilter::for_capacity(kInserted, p);
    ASSERT_TRUE(filter.ok());
    const double measured = measured_fpr(*filter);
    EXPECT_LE(measured, p * 1.1) << "p " << p << ": measured " << measured << " with "
                                 << static_cast<double>(filter->num_bits()) / kInserted
                                 << " bits per key";
  }
}

}  // namespace
}  // namespace sumcache::filters
