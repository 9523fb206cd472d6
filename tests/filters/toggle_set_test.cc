#include "filters/toggle_set.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace sumcache::filters {
namespace {

TEST(ToggleSet, ToggleInsertsThenErases) {
  ToggleSet s;
  EXPECT_EQ(s.size(), 0U);
  s.toggle(7);
  EXPECT_TRUE(s.contains(7));
  EXPECT_EQ(s.size(), 1U);
  s.toggle(7);
  EXPECT_FALSE(s.contains(7));
  EXPECT_EQ(s.size(), 0U);
  s.toggle(0);
  EXPECT_TRUE(s.contains(0));
}

TEST(ToggleSet, SortedListsTheValuesInAscendingOrder) {
  ToggleSet s;
  for (std::uint64_t x : {40ULL, 3ULL, 1ULL << 39, 3ULL, 17ULL, 0ULL}) s.toggle(x);
  EXPECT_EQ(s.sorted(), (std::vector<std::uint64_t>{0, 17, 40, 1ULL << 39}));
}

TEST(ToggleSet, GrowsToKeepLoadAtMostHalfAndClearKeepsTheTable) {
  ToggleSet s(2);
  EXPECT_EQ(s.memory_bytes(), 2 * sizeof(std::uint64_t));
  for (std::uint64_t x = 0; x < 1000; ++x) {
    s.toggle(x);
    ASSERT_GE(s.memory_bytes(), 2 * s.size() * sizeof(std::uint64_t));
  }
  const std::size_t bytes = s.memory_bytes();
  EXPECT_EQ(bytes, 2048 * sizeof(std::uint64_t));
  s.clear();
  EXPECT_EQ(s.size(), 0U);
  EXPECT_TRUE(s.sorted().empty());
  EXPECT_EQ(s.memory_bytes(), bytes);
  for (std::uint64_t x = 0; x < 1000; ++x) ASSERT_FALSE(s.contains(x));
}

TEST(ToggleSet, ClearShrinksATableMoreThanTwiceTheSizeItsValuesNeeded) {
  ToggleSet s(16);
  for (std::uint64_t x = 0; x < 1000; ++x) s.toggle(x);
  s.clear();
  EXPECT_EQ(s.memory_bytes(), 2048 * sizeof(std::uint64_t));  // 1000 values need 2048 slots
  for (std::uint64_t x = 0; x < 10; ++x) s.toggle(x);
  s.clear();
  EXPECT_EQ(s.memory_bytes(), 32 * sizeof(std::uint64_t));
  for (std::uint64_t x = 0; x < 10; ++x) s.toggle(x);
  EXPECT_EQ(s.sorted().size(), 10U);
  s.clear();
  s.clear();  // an empty set needs the minimum, 16 slots; 32 is not more than twice that
  EXPECT_EQ(s.memory_bytes(), 32 * sizeof(std::uint64_t));
}

TEST(ToggleSet, ValuesToggledAnEvenNumberOfTimesLeaveNoTrace) {
  ToggleSet s(64);
  for (int round = 0; round < 10'000; ++round) {
    s.toggle(5);
    s.toggle(5);
  }
  EXPECT_EQ(s.size(), 0U);
  EXPECT_EQ(s.memory_bytes(), 64 * sizeof(std::uint64_t));
}

// Random toggles over a small range keep long probe runs that wrap around the
// table's end, so backward-shift deletion meets every case; a std::set of the
// odd-count values is the model.
TEST(ToggleSet, AgreesWithASetModelUnderRandomToggles) {
  for (std::uint64_t seed : {1ULL, 2ULL, 3ULL}) {
    std::mt19937_64 rng(seed);
    ToggleSet s(4);
    std::set<std::uint64_t> model;
    const std::uint64_t range = seed == 1 ? 40 : 3000;
    for (int op = 0; op < 100'000; ++op) {
      const std::uint64_t x = rng() % range * (seed == 3 ? 1024 : 1);
      s.toggle(x);
      if (!model.erase(x)) model.insert(x);
      ASSERT_EQ(s.size(), model.size());
      if (op % 997 == 0) {
        ASSERT_EQ(s.sorted(), std::vector<std::uint64_t>(model.begin(), model.end()));
        for (std::uint64_t y = 0; y < range; ++y) {
          const std::uint64_t v = y * (seed == 3 ? 1024 : 1);
          ASSERT_EQ(s.contains(v), model.contains(v)) << v;
        }
      }
    }
  }
}

}  // namespace
}  // namespace sumcache::filters
