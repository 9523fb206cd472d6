#include "filters/scalable_bloom_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ostream>

#include "filters/filter_error.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

using sumcache::testing::url_key;

ScalableBloomFilter make(std::uint64_t initial_capacity, double fpr = 0.01,
                         std::uint32_t growth = 2, double tightening = 0.85,
                         std::uint64_t max_bits = kMaxBits) {
  auto f = ScalableBloomFilter::create(initial_capacity, fpr, growth, tightening, {}, max_bits);
  EXPECT_TRUE(f.ok()) << f.error().message();
  return std::move(f).value();
}

// Adds url_key(next), url_key(next + 1), ... until size() reaches target. Keys that
// look present already are skipped by add, so this may take more keys than target.
void fill_to(ScalableBloomFilter& f, std::uint64_t target, std::uint64_t& next) {
  while (f.size() < target) {
    auto added = f.add(url_key(next++));
    ASSERT_TRUE(added.ok()) << added.error().message();
  }
}

TEST(ScalableBloomFilter, EmptyFilterHasOneSubFilterAndContainsNothing) {
  ScalableBloomFilter f = make(1000);
  EXPECT_EQ(f.size(), 0U);
  EXPECT_EQ(f.filter_count(), 1U);
  EXPECT_EQ(f.capacity(), 1000U);
  EXPECT_EQ(f.expected_fpr(), 0.0);
  EXPECT_FALSE(f.contains("http://a/"));
  // The first sub-filter is sized for fpr (1 - r).
  EXPECT_EQ(f.memory_bytes(), (optimal_params(1000, 0.01 * 0.15)->m + 63) / 64 * 8);
}

TEST(ScalableBloomFilter, AddReportsWhetherTheKeyWasNew) {
  ScalableBloomFilter f = make(1000);
  auto first = f.add("http://a/");
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(*first);
  auto again = f.add("http://a/");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_EQ(f.size(), 1U);
}

TEST(ScalableBloomFilter, HashedAndKeyedCallsAgree) {
  ScalableBloomFilter f = make(1000);
  ASSERT_TRUE(f.add(Hasher{}("http://a/")).ok());
  EXPECT_TRUE(f.contains("http://a/"));
  EXPECT_FALSE(*f.add("http://a/"));
}

TEST(ScalableBloomFilter, AddedKeysAreAlwaysContainedAcrossGrowth) {
  ScalableBloomFilter f = make(100);
  for (std::uint64_t i = 0; i < 20'000; ++i) ASSERT_TRUE(f.add(url_key(i)).ok()) << i;
  EXPECT_EQ(f.filter_count(), 8U);  // 100 * (2^7 - 1) < 20'000 <= 100 * (2^8 - 1)
  for (std::uint64_t i = 0; i < 20'000; ++i) ASSERT_TRUE(f.contains(url_key(i))) << i;
}

TEST(ScalableBloomFilter, GrowthTwoAddsADoubledSubFilterOnlyWhenTheNewestIsFull) {
  ScalableBloomFilter f = make(1000);
  std::uint64_t next = 0;
  fill_to(f, 1000, next);
  EXPECT_EQ(f.filter_count(), 1U);
  EXPECT_EQ(f.capacity(), 1000U);
  fill_to(f, 1001, next);
  EXPECT_EQ(f.filter_count(), 2U);
  EXPECT_EQ(f.capacity(), 3000U);
  fill_to(f, 7000, next);
  EXPECT_EQ(f.filter_count(), 3U);
  EXPECT_EQ(f.capacity(), 7000U);
  fill_to(f, 7001, next);
  EXPECT_EQ(f.filter_count(), 4U);
  EXPECT_EQ(f.capacity(), 15'000U);
}

TEST(ScalableBloomFilter, GrowthFourQuadruplesEachSubFilter) {
  ScalableBloomFilter f = make(1000, 0.01, 4, 0.9);
  std::uint64_t next = 0;
  fill_to(f, 5000, next);
  EXPECT_EQ(f.filter_count(), 2U);
  EXPECT_EQ(f.capacity(), 5000U);
  fill_to(f, 5001, next);
  EXPECT_EQ(f.filter_count(), 3U);
  EXPECT_EQ(f.capacity(), 21'000U);
}

TEST(ScalableBloomFilter, DuplicatesUseNoCapacity) {
  ScalableBloomFilter f = make(10);
  for (int round = 0; round < 100; ++round) {
    for (std::uint64_t i = 0; i < 10; ++i) {
      auto added = f.add(url_key(i));
      ASSERT_TRUE(added.ok());
      EXPECT_EQ(*added, round == 0) << round << " " << i;
    }
  }
  EXPECT_EQ(f.size(), 10U);
  EXPECT_EQ(f.filter_count(), 1U);
  EXPECT_TRUE(*f.add(url_key(10)));
  EXPECT_EQ(f.filter_count(), 2U);
}

TEST(ScalableBloomFilter, InvalidParametersAreRejected) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ScalableBloomFilter::create(0, 0.01).error(), FilterErrc::invalid_entries);
  for (double fpr : {0.0, 1.0, -0.1, 1.5, nan}) {
    EXPECT_EQ(ScalableBloomFilter::create(1000, fpr).error(), FilterErrc::invalid_fpr) << fpr;
  }
  for (std::uint32_t growth : {0U, 1U}) {
    EXPECT_EQ(ScalableBloomFilter::create(1000, 0.01, growth).error(), FilterErrc::invalid_growth);
  }
  for (double tightening : {0.0, 1.0, -0.5, 1.5, nan}) {
    EXPECT_EQ(ScalableBloomFilter::create(1000, 0.01, 2, tightening).error(),
              FilterErrc::invalid_growth)
        << tightening;
  }
  // First sub-filter above kMaxBits, or above the caller's cap.
  EXPECT_EQ(ScalableBloomFilter::create(std::uint64_t{1} << 40, 0.01).error(),
            FilterErrc::size_overflow);
  EXPECT_EQ(ScalableBloomFilter::create(1000, 0.01, 2, 0.85, {}, 1000).error(),
            FilterErrc::size_overflow);
}

TEST(ScalableBloomFilter, MemoryCapStopsGrowthWithSizeOverflowAndChangesNothing) {
  // Room for exactly the first three sub-filters, at rates p (1 - r) r^i.
  std::uint64_t max_bits = 0;
  for (int i = 0; i < 3; ++i) {
    max_bits += optimal_params(1000 << i, 0.01 * 0.15 * std::pow(0.85, i))->m;
  }
  ScalableBloomFilter f = make(1000, 0.01, 2, 0.85, max_bits);
  std::uint64_t next = 0;
  fill_to(f, 7000, next);
  ASSERT_EQ(f.filter_count(), 3U);
  const std::size_t memory = f.memory_bytes();

  while (f.contains(url_key(next))) ++next;
  auto refused = f.add(url_key(next));
  EXPECT_EQ(refused.error(), FilterErrc::size_overflow);
  EXPECT_EQ(f.size(), 7000U);
  EXPECT_EQ(f.filter_count(), 3U);
  EXPECT_EQ(f.memory_bytes(), memory);
  // Keys that are present still add as no-ops, and nothing was lost.
  auto repeat = f.add(url_key(0));
  ASSERT_TRUE(repeat.ok());
  EXPECT_FALSE(*repeat);
  for (std::uint64_t i = 0; i < next; ++i) ASSERT_TRUE(f.contains(url_key(i))) << i;
}

TEST(ScalableBloomFilter, TighteningThatUnderflowsToZeroIsSizeOverflow) {
  // Rates 0.5, 0.5e-300, then 0.5e-600, which is 0 in a double.
  ScalableBloomFilter f = make(1, 0.5, 2, 1e-300);
  std::uint64_t next = 0;
  fill_to(f, 3, next);
  EXPECT_EQ(f.filter_count(), 2U);
  while (f.contains(url_key(next))) ++next;
  EXPECT_EQ(f.add(url_key(next)).error(), FilterErrc::size_overflow);
}

TEST(ScalableBloomFilter, SubFiltersShareTheGivenHasher) {
  auto md5 = Hasher::create(HashId::md5);
  ASSERT_TRUE(md5.ok());
  auto f = ScalableBloomFilter::create(10, 0.01, 2, 0.85, *md5);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->hasher(), *md5);
  for (std::uint64_t i = 0; i < 100; ++i) ASSERT_TRUE(f->add(url_key(i)).ok());
  EXPECT_GT(f->filter_count(), 1U);
  for (std::uint64_t i = 0; i < 100; ++i) EXPECT_TRUE(f->contains(md5_128(url_key(i)))) << i;
}

// Statistical check: after 100 times the initial capacity, the false positive rate
// measured over 10^6 absent keys stays under the target and matches the model.
struct FprCase {
  double fpr;
  std::uint32_t growth;
  double tightening;
  std::size_t filters;  // after kInserted keys from kInitialCapacity
  const char* name;
  // Names the case in test output instead of a dump of its bytes. GoogleTest looks
  // this name up, hence its case.
  // NOLINTNEXTLINE(readability-identifier-naming)
  friend void PrintTo(const FprCase& c, std::ostream* os) { *os << c.name; }
};

class ScalableBloomFpr : public ::testing::TestWithParam<FprCase> {};

constexpr std::uint64_t kInitialCapacity = 1000;
constexpr std::uint64_t kInserted = 100 * kInitialCapacity;
constexpr std::uint64_t kProbed = 1'000'000;

TEST_P(ScalableBloomFpr, MeasuredRateStaysUnderTargetAndMatchesModel) {
  const FprCase c = GetParam();
  ScalableBloomFilter f = make(kInitialCapacity, c.fpr, c.growth, c.tightening);
  for (std::uint64_t i = 0; i < kInserted; ++i) ASSERT_TRUE(f.add(url_key(i)).ok());
  EXPECT_EQ(f.filter_count(), c.filters);
  std::uint64_t false_positives = 0;
  for (std::uint64_t i = kInserted; i < kInserted + kProbed; ++i) {
    false_positives += f.contains(url_key(i)) ? 1 : 0;
  }
  const double measured = static_cast<double>(false_positives) / kProbed;
  const double expected = f.expected_fpr();
  EXPECT_LE(measured, c.fpr);
  EXPECT_LE(expected, c.fpr);
  // Five binomial standard deviations, plus 5% for the model's approximations.
  const double expected_count = expected * kProbed;
  EXPECT_NEAR(static_cast<double>(false_positives), expected_count,
              5 * std::sqrt(expected_count) + 0.05 * expected_count)
      << "measured " << measured << " expected " << expected;
}

// The paper's two growth rates with tightening in its suggested 0.8 to 0.9.
INSTANTIATE_TEST_SUITE_P(Configurations, ScalableBloomFpr,
                         ::testing::Values(FprCase{0.01, 2, 0.85, 7, "p1pct_s2_r085"},
                                           FprCase{0.001, 2, 0.85, 7, "p01pct_s2_r085"},
                                           FprCase{0.01, 4, 0.9, 5, "p1pct_s4_r09"},
                                           FprCase{0.001, 4, 0.9, 5, "p01pct_s4_r09"}),
                         [](const auto& test) { return std::string(test.param.name); });

}  // namespace
}  // namespace sumcache::filters
