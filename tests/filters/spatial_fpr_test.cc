// Statistical check of the spatial Bloom filter's formulas (Calderoni,
// Palmieri and Maio): on the keys of the other FPR tests (fpr_keys.h:
// 10^5 inserted, split evenly over s sets in ascending order, 10^6 absent),
// for 2..16 cells per key, k 1..6 and s 2 and 8, each measured rate is
// compared with its a priori formula and with its a posteriori form (from
// the cells):
// - absent keys reported as set i, against sbf_expected_fpr;
// - members of set 1 reported as a higher set i, against the same formula
//   (a lower set's member is a non-member for the sets above it);
// - members of set i reported above i, against sbf_expected_isep;
// - the emersion of each set, against sbf_expected_emersion.
// Rates are checked where at least 1,000 events are expected, within 10%
// (as bloom_fpr_test.cc); emersion, a ratio of cell counts, within 3%
// where at least 10,000 cells are expected to keep their set.
#include <gtest/gtest.h>

#include <vector>

#include "filters/spatial_bloom_filter.h"
#include "tests/filters/fpr_keys.h"

namespace sumcache::filters {
namespace {

constexpr std::uint64_t kInserted = kFprInserted;
constexpr std::uint64_t kProbed = kFprProbed;
constexpr double kMinExpectedEvents = 1000;
constexpr double kRelativeTolerance = 0.10;
constexpr double kMinExpectedCells = 10'000;
constexpr double kEmersionTolerance = 0.03;

std::uint32_t set_of(std::uint64_t i, std::uint32_t sets) {
  return 1 + static_cast<std::uint32_t>(i * sets / kInserted);
}

struct Counts {
  std::vector<std::uint64_t> absent_as;  // [i]: absent keys reported as set i
  std::vector<std::uint64_t> lowest_as;  // [i]: members of set 1 reported as set i
  std::vector<std::uint64_t> raised;     // [i]: members of set i reported above i
};

Counts measure(const SpatialBloomFilter& filter, const std::vector<Hash128>& hashes) {
  const std::uint32_t sets = filter.sets();
  Counts counts{std::vector<std::uint64_t>(sets + 1, 0), std::vector<std::uint64_t>(sets + 1, 0),
                std::vector<std::uint64_t>(sets + 1, 0)};
  for (std::uint64_t i = kInserted; i < kInserted + kProbed; ++i) {
    ++counts.absent_as[filter.query(hashes[i])];
  }
  for (std::uint64_t i = 0; i < kInserted; ++i) {
    const std::uint32_t set = set_of(i, sets);
    const std::uint32_t reported = filter.query(hashes[i]);
    EXPECT_GE(reported, set) << "a member reported below its set";
    if (set == 1) ++counts.lowest_as[reported];
    if (reported > set) ++counts.raised[set];
  }
  return counts;
}

// Checks measured / trials against `expected` if enough events are expected.
int check_rate(std::uint64_t events, std::uint64_t trials, double expected, double a_posteriori,
               const std::string& what) {
  if (expected * static_cast<double>(trials) < kMinExpectedEvents) return 0;
  const double measured = static_cast<double>(events) / static_cast<double>(trials);
  EXPECT_NEAR(measured / expected, 1.0, kRelativeTolerance)
      << what << ": measured " << measured << " a priori " << expected;
  EXPECT_NEAR(measured / a_posteriori, 1.0, kRelativeTolerance)
      << what << ": measured " << measured << " a posteriori " << a_posteriori;
  return 1;
}

class SpatialFpr : public ::testing::TestWithParam<int> {};

TEST_P(SpatialFpr, MeasuredRatesMatchTheFormulas) {
  const int cells_per_key = GetParam();
  const std::vector<Hash128>& hashes = fpr_key_hashes();
  int checked = 0;
  for (const std::uint32_t sets : {2u, 8u}) {
    for (std::uint32_t k = 1; k <= 6; ++k) {
      const BloomParams params{kInserted * static_cast<std::uint64_t>(cells_per_key), k};
      auto made = SpatialBloomFilter::create(params, sets);
      ASSERT_TRUE(made.ok());
      SpatialBloomFilter& filter = *made;
      for (std::uint64_t i = 0; i < kInserted; ++i) {
        ASSERT_FALSE(filter.insert(hashes[i], set_of(i, sets)));
      }
      ASSERT_TRUE(filter.inserted_in_order());
      const Counts counts = measure(filter, hashes);
      const std::uint64_t lowest_members = filter.members(1);
      for (std::uint32_t set = 1; set <= sets; ++set) {
        const std::string at = "cells/key " + std::to_string(cells_per_key) + " k " +
                               std::to_string(k) + " s " + std::to_string(sets) + " set " +
                               std::to_string(set);
        checked += check_rate(counts.absent_as[set], kProbed, filter.expected_fpr(set),
                              filter.fpr_from_cells(set), at + " absent");
        if (set > 1) {
          checked += check_rate(counts.lowest_as[set], lowest_members, filter.expected_fpr(set),
                                filter.fpr_from_cells(set), at + " member of set 1");
        }
        checked += check_rate(counts.raised[set], filter.members(set), filter.expected_isep(set),
                              filter.isep_from_cells(set).value_or(-1), at + " raised member");
        if (filter.expected_cells(set) >= kMinExpectedCells) {
          EXPECT_NEAR(filter.emersion(set).value_or(-1) / filter.expected_emersion(set), 1.0,
                      kEmersionTolerance)
              << at << ": emersion " << filter.emersion(set).value_or(-1) << " expected "
              << filter.expected_emersion(set);
          EXPECT_NEAR(static_cast<double>(filter.cells_holding(set)) / filter.expected_cells(set),
                      1.0, kEmersionTolerance)
              << at << ": cells " << filter.cells_holding(set) << " expected "
              << filter.expected_cells(set);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
  RecordProperty("checked", checked);
}

INSTANTIATE_TEST_SUITE_P(CellsPerKey, SpatialFpr, ::testing::Values(2, 4, 8, 16));

}  // namespace
}  // namespace sumcache::filters
