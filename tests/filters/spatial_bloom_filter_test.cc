// SpatialBloomFilter: queries, priorities, cell widths, counters, the
// formulas on hand-computed cases, and every error.
#include "filters/spatial_bloom_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "filters/bloom_filter.h"
#include "filters/filter_error.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

using sumcache::testing::url_key;

SpatialBloomFilter make(BloomParams params, std::uint32_t sets) {
  auto filter = SpatialBloomFilter::create(params, sets);
  EXPECT_TRUE(filter.ok()) << filter.error().message();
  return std::move(filter).value();
}

// Key i of a run of `count` keys belongs to set 1 + i * sets / count: the
// sets in ascending order, as the paper inserts them.
std::uint32_t set_of(std::uint64_t i, std::uint64_t count, std::uint32_t sets) {
  return 1 + static_cast<std::uint32_t>(i * sets / count);
}

TEST(SpatialBloomFilter, EmptyFilterReportsNoSet) {
  const SpatialBloomFilter filter = make({1000, 4}, 3);
  for (std::uint64_t i = 0; i < 100; ++i) EXPECT_EQ(filter.query(url_key(i)), 0u);
  EXPECT_EQ(filter.cells_holding(0), 1000u);
  EXPECT_EQ(filter.fpr_from_cells(), 0.0);
  EXPECT_EQ(filter.expected_fpr(), 0.0);
}

TEST(SpatialBloomFilter, MembersAreNeverReportedBelowTheirSet) {
  constexpr std::uint64_t kKeys = 20'000;
  constexpr std::uint32_t kSets = 8;
  SpatialBloomFilter filter = make({kKeys * 4, 3}, kSets);  // crowded: many overwrites
  for (std::uint64_t i = 0; i < kKeys; ++i) {
    ASSERT_FALSE(filter.insert(url_key(i), set_of(i, kKeys, kSets)));
  }
  std::uint64_t exact = 0;
  for (std::uint64_t i = 0; i < kKeys; ++i) {
    const std::uint32_t reported = filter.query(url_key(i));
    ASSERT_GE(reported, set_of(i, kKeys, kSets)) << "key " << i;
    ASSERT_LE(reported, kSets);
    exact += reported == set_of(i, kKeys, kSets) ? 1 : 0;
  }
  // The top set can only be reported exactly; the lower ones mostly are.
  EXPECT_GT(exact, kKeys / 2);
}

TEST(SpatialBloomFilter, KeyInSeveralSetsIsReportedInTheHighest) {
  for (const bool ascending : {true, false}) {
    SpatialBloomFilter filter = make({1 << 16, 4}, 6);
    const std::string key = url_key(42);
    ASSERT_FALSE(filter.insert(key, ascending ? 2 : 5));
    ASSERT_FALSE(filter.insert(key, ascending ? 5 : 2));
    EXPECT_EQ(filter.query(key), 5u) << (ascending ? "ascending" : "descending");
    EXPECT_EQ(filter.inserted_in_order(), ascending);
  }
}

TEST(SpatialBloomFilter, InsertOrderDoesNotChangeTheCells) {
  constexpr std::uint64_t kKeys = 5'000;
  constexpr std::uint32_t kSets = 4;
  SpatialBloomFilter ascending = make({kKeys * 6, 3}, kSets);
  SpatialBloomFilter descending = make({kKeys * 6, 3}, kSets);
  for (std::uint64_t i = 0; i < kKeys; ++i) {
    ASSERT_FALSE(ascending.insert(url_key(i), set_of(i, kKeys, kSets)));
    const std::uint64_t j = kKeys - 1 - i;
    ASSERT_FALSE(descending.insert(url_key(j), set_of(j, kKeys, kSets)));
  }
  for (std::uint64_t c = 0; c < ascending.params().m; ++c) {
    ASSERT_EQ(ascending.cell(c), descending.cell(c)) << "cell " << c;
  }
  for (std::uint32_t v = 0; v <= kSets; ++v) {
    EXPECT_EQ(ascending.cells_holding(v), descending.cells_holding(v));
  }
  EXPECT_TRUE(ascending.inserted_in_order());
  EXPECT_FALSE(descending.inserted_in_order());
  EXPECT_TRUE(ascending.emersion(1).has_value());
  // Set 1 came last: a cell already above 1 hides whether set 1 wrote it.
  EXPECT_FALSE(descending.emersion(1).has_value());
  EXPECT_FALSE(descending.isep_from_cells(1).has_value());
}

// A cell holds the highest set whose plain Bloom filter, with the same m, k
// and hasher, has that bit: what a node could build from peers' summaries.
TEST(SpatialBloomFilter, CellsAreTheHighestSetOfEqualBloomFilters) {
  constexpr std::uint64_t kKeys = 6'000;
  constexpr std::uint32_t kSets = 3;
  const BloomParams params{kKeys * 5, 4};
  SpatialBloomFilter spatial = make(params, kSets);
  std::vector<BloomFilter> plain;
  for (std::uint32_t s = 0; s < kSets; ++s) plain.push_back(BloomFilter::create(params).value());
  for (std::uint64_t i = 0; i < kKeys; ++i) {
    const std::uint32_t set = set_of(i, kKeys, kSets);
    ASSERT_FALSE(spatial.insert(url_key(i), set));
    plain[set - 1].add(url_key(i));
  }
  for (std::uint64_t c = 0; c < params.m; ++c) {
    std::uint32_t highest = 0;
    for (std::uint32_t s = 1; s <= kSets; ++s) highest = plain[s - 1].test_bit(c) ? s : highest;
    ASSERT_EQ(spatial.cell(c), highest) << "cell " << c;
  }
  // And a query is nonzero exactly when the union's Bloom filter holds the key.
  BloomFilter all = plain[0];
  ASSERT_FALSE(all.union_with(plain[1]));
  ASSERT_FALSE(all.union_with(plain[2]));
  for (std::uint64_t i = 0; i < 3 * kKeys; ++i) {
    ASSERT_EQ(spatial.query(url_key(i)) != 0, all.contains(url_key(i))) << "key " << i;
  }
}

TEST(SpatialBloomFilter, CellsAreTheNarrowestWidthThatHoldsEverySet) {
  const SpatialBloomFilter small = make({1000, 2}, 255);
  EXPECT_EQ(small.cell_bytes(), 1u);
  EXPECT_EQ(small.memory_bytes(), 1000u);
  SpatialBloomFilter wide = make({1000, 2}, 256);
  EXPECT_EQ(wide.cell_bytes(), 2u);
  EXPECT_EQ(wide.memory_bytes(), 2000u);
  SpatialBloomFilter widest = make({1000, 2}, SpatialBloomFilter::kMaxSets);
  ASSERT_FALSE(widest.insert(url_key(1), SpatialBloomFilter::kMaxSets));
  ASSERT_FALSE(widest.insert(url_key(2), 256));
  EXPECT_EQ(widest.query(url_key(1)), SpatialBloomFilter::kMaxSets);
  EXPECT_EQ(widest.query(url_key(2)), 256u);
  ASSERT_FALSE(wide.insert(url_key(3), 256));
  EXPECT_EQ(wide.query(url_key(3)), 256u);
}

TEST(SpatialBloomFilter, CountsMembersAndCells) {
  SpatialBloomFilter filter = make({1 << 12, 3}, 4);
  for (std::uint64_t i = 0; i < 300; ++i) ASSERT_FALSE(filter.insert(url_key(i), 1 + i % 2));
  ASSERT_FALSE(filter.insert(url_key(0), 4));  // a duplicate counts as a member
  EXPECT_EQ(filter.members(1), 150u);
  EXPECT_EQ(filter.members(2), 150u);
  EXPECT_EQ(filter.members(3), 0u);
  EXPECT_EQ(filter.members(4), 1u);
  EXPECT_EQ(filter.members(0), 0u);
  EXPECT_EQ(filter.members(5), 0u);
  const auto members = filter.all_members();
  EXPECT_EQ(std::vector<std::uint64_t>(members.begin(), members.end()),
            (std::vector<std::uint64_t>{150, 150, 0, 1}));
  std::uint64_t cells = 0;
  std::vector<std::uint64_t> counted(5, 0);
  for (std::uint64_t c = 0; c < filter.params().m; ++c) ++counted[filter.cell(c)];
  for (std::uint32_t v = 0; v <= 4; ++v) {
    EXPECT_EQ(filter.cells_holding(v), counted[v]) << "value " << v;
    cells += filter.cells_holding(v);
  }
  EXPECT_EQ(cells, filter.params().m);
  EXPECT_EQ(filter.cells_holding(5), 0u);
  EXPECT_EQ(filter.query(url_key(0)), 4u);
  EXPECT_FALSE(filter.inserted_in_order());  // 1, 2, 1, ... is not ascending
}

// One cell: every key lands in it, so it holds the highest set inserted.
TEST(SpatialBloomFilter, OneCellHoldsTheHighestSetInserted) {
  SpatialBloomFilter filter = make({1, 3}, 3);
  ASSERT_FALSE(filter.insert(url_key(1), 1));
  EXPECT_EQ(filter.emersion(1), 1.0);
  ASSERT_FALSE(filter.insert(url_key(2), 2));
  EXPECT_EQ(filter.query(url_key(1)), 2u);
  EXPECT_EQ(filter.query(url_key(99)), 2u);
  EXPECT_EQ(filter.emersion(1), 0.0);  // its one cell now holds 2
  EXPECT_EQ(filter.emersion(2), 1.0);
  EXPECT_FALSE(filter.emersion(3).has_value());  // no members
  EXPECT_EQ(filter.expected_emersion(1), 0.0);
  EXPECT_EQ(filter.expected_emersion(2), 1.0);
  EXPECT_EQ(filter.expected_fpr(2), 1.0);
  EXPECT_EQ(filter.expected_fpr(1), 0.0);
  EXPECT_EQ(filter.fpr_from_cells(2), 1.0);
  EXPECT_EQ(filter.fpr_from_cells(1), 0.0);
  EXPECT_EQ(filter.isep_from_cells(1), 1.0);
}

// m = 10, k = 2, 3 members in set 1 and 1 in set 2, so q = 0.9.
TEST(SpatialBloomFilter, FormulasOnAHandComputedCase) {
  const BloomParams params{10, 2};
  const std::vector<std::uint64_t> members{3, 1};
  // Set 2 is overwritten by nothing; set 1 by set 2's k = 2 writes.
  EXPECT_DOUBLE_EQ(sbf_expected_emersion(params, members, 2), 1.0);
  EXPECT_NEAR(sbf_expected_emersion(params, members, 1), 0.81, 1e-12);
  // Cells: 10 (1 - 0.9^6) 0.81 and 10 (1 - 0.9^2).
  EXPECT_NEAR(sbf_expected_cells(params, members, 1), 10 * (1 - 0.531441) * 0.81, 1e-9);
  EXPECT_NEAR(sbf_expected_cells(params, members, 2), 10 * 0.19, 1e-9);
  // P(cell >= 2) = 0.19, P(cell >= 1) = 1 - 0.9^8 = 0.56953279.
  EXPECT_NEAR(sbf_expected_fpr(params, members, 2), 0.19 * 0.19, 1e-12);
  EXPECT_NEAR(sbf_expected_fpr(params, members, 1), 0.56953279 * 0.56953279 - 0.0361, 1e-9);
  EXPECT_NEAR(sbf_expected_isep(params, members, 1), 0.0361, 1e-12);
  EXPECT_DOUBLE_EQ(sbf_expected_isep(params, members, 2), 0.0);
  // Out of range sets have no probability.
  EXPECT_EQ(sbf_expected_fpr(params, members, 0), 0.0);
  EXPECT_EQ(sbf_expected_fpr(params, members, 3), 0.0);
  EXPECT_EQ(sbf_expected_cells(params, members, 3), 0.0);
  EXPECT_EQ(sbf_expected_emersion(params, members, 0), 0.0);
  EXPECT_EQ(sbf_expected_isep(params, members, 3), 0.0);
  // So do invalid params.
  EXPECT_EQ(sbf_expected_fpr({0, 2}, members, 1), 0.0);
  EXPECT_EQ(sbf_expected_emersion({10, 0}, members, 1), 0.0);
}

// The per-set rates add up to the plain Bloom filter's rate, and the
// expected cells of every set to the expected nonzero cells.
TEST(SpatialBloomFilter, PerSetFormulasSumToTheWholeFilters) {
  SpatialBloomFilter filter = make({50'000, 5}, 7);
  for (std::uint64_t i = 0; i < 7'000; ++i) ASSERT_FALSE(filter.insert(url_key(i), 1 + i / 1000));
  double fpr = 0;
  double cells = 0;
  for (std::uint32_t set = 1; set <= 7; ++set) {
    fpr += filter.expected_fpr(set);
    cells += filter.expected_cells(set);
    EXPECT_GT(filter.expected_fpr(set), 0.0);
  }
  const BloomParams& p = filter.params();
  EXPECT_NEAR(fpr, filter.expected_fpr(), 1e-12);
  // The plain filter's e^(-kn/m) form differs from (1 - 1/m)^(kn) by O(1/m).
  EXPECT_NEAR(fpr / expected_fpr(p, 7'000), 1.0, 1e-3);
  EXPECT_NEAR(cells, p.m * (1 - std::pow(1 - 1.0 / p.m, 5.0 * 7'000)), 1e-6);
  EXPECT_DOUBLE_EQ(filter.expected_emersion(7), 1.0);
  EXPECT_DOUBLE_EQ(filter.expected_isep(7), 0.0);
}

TEST(SpatialBloomFilter, ForCapacitySizesAsAPlainFilter) {
  auto filter = SpatialBloomFilter::for_capacity(10'000, 0.01, 4);
  ASSERT_TRUE(filter.ok());
  EXPECT_EQ(filter->params(), optimal_params(10'000, 0.01).value());
  EXPECT_EQ(filter->sets(), 4u);
  EXPECT_EQ(filter->memory_bytes(), filter->params().m);
}

TEST(SpatialBloomFilter, RefusesBadParameters) {
  EXPECT_EQ(SpatialBloomFilter::create({1000, 3}, 0).error(), FilterErrc::invalid_sets);
  EXPECT_EQ(SpatialBloomFilter::create({1000, 3}, SpatialBloomFilter::kMaxSets + 1).error(),
            FilterErrc::invalid_sets);
  EXPECT_EQ(SpatialBloomFilter::create({0, 3}, 2).error(), FilterErrc::invalid_bits);
  EXPECT_EQ(SpatialBloomFilter::create({kMaxBits + 1, 3}, 2).error(), FilterErrc::invalid_bits);
  EXPECT_EQ(SpatialBloomFilter::create({1000, 0}, 2).error(), FilterErrc::invalid_hashes);
  EXPECT_EQ(SpatialBloomFilter::create({1000, kMaxHashes + 1}, 2).error(),
            FilterErrc::invalid_hashes);
  EXPECT_EQ(SpatialBloomFilter::for_capacity(0, 0.01, 2).error(), FilterErrc::invalid_entries);
  EXPECT_EQ(SpatialBloomFilter::for_capacity(100, 1.0, 2).error(), FilterErrc::invalid_fpr);
  EXPECT_EQ(SpatialBloomFilter::for_capacity(100, 0.01, 0).error(), FilterErrc::invalid_sets);
  EXPECT_STREQ(make_error_code(FilterErrc::invalid_sets).message().c_str(),
               "set count or set index out of range");
}

TEST(SpatialBloomFilter, RefusesASetOutOfRangeAndChangesNothing) {
  SpatialBloomFilter filter = make({1000, 3}, 3);
  ASSERT_FALSE(filter.insert(url_key(1), 3));
  EXPECT_EQ(filter.insert(url_key(2), 0), FilterErrc::invalid_sets);
  EXPECT_EQ(filter.insert(url_key(2), 4), FilterErrc::invalid_sets);
  EXPECT_EQ(filter.query(url_key(2)), 0u);
  EXPECT_EQ(filter.members(3), 1u);
  EXPECT_EQ(filter.cells_holding(0) + filter.cells_holding(3), 1000u);
  EXPECT_TRUE(filter.inserted_in_order());  // the refused set 0 did not count
}

TEST(SpatialBloomFilter, MeasuredAnswersAreForSetsInRangeOnly) {
  SpatialBloomFilter filter = make({1000, 3}, 2);
  ASSERT_FALSE(filter.insert(url_key(1), 1));
  EXPECT_FALSE(filter.emersion(0).has_value());
  EXPECT_FALSE(filter.emersion(3).has_value());
  EXPECT_EQ(filter.fpr_from_cells(0), 0.0);
  EXPECT_EQ(filter.fpr_from_cells(3), 0.0);
  EXPECT_EQ(filter.expected_fpr(3), 0.0);
  EXPECT_EQ(filter.emersion(1), 1.0);
}

}  // namespace
}  // namespace sumcache::filters
