// FingerprintTable: the ordered multiset, its ranks, its memory at the
// issue's load, and its deltas (removed ranks in the marked set, added
// fingerprints), also against a std::multiset model over millions of
// random operations.
#include "filters/fingerprint_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <random>
#include <set>
#include <vector>

#include "filters/filter_error.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

FingerprintTable make(std::uint64_t universe) {
  return std::move(FingerprintTable::create(universe)).value();
}

// What a receiver does with a delta: drop the marked set's elements at the
// removed ranks, then merge the added ones.
std::vector<std::uint64_t> applied(const std::vector<std::uint64_t>& marked,
                                   const FingerprintDelta& delta) {
  std::vector<std::uint64_t> kept;
  std::size_t r = 0;
  for (std::uint64_t i = 0; i < marked.size(); ++i) {
    if (r < delta.removed_ranks.size() && delta.removed_ranks[r] == i) {
      ++r;
      continue;
    }
    kept.push_back(marked[i]);
  }
  EXPECT_EQ(r, delta.removed_ranks.size()) << "a removed rank beyond the marked set";
  std::vector<std::uint64_t> out;
  std::merge(kept.begin(), kept.end(), delta.added.begin(), delta.added.end(),
             std::back_inserter(out));
  return out;
}

TEST(FingerprintTable, RefusesUniverseZeroAndAboveTheCap) {
  EXPECT_EQ(FingerprintTable::create(0).error(), FilterErrc::invalid_bits);
  EXPECT_EQ(FingerprintTable::create(kMaxUniverse + 1).error(), FilterErrc::invalid_bits);
  EXPECT_TRUE(FingerprintTable::create(kMaxUniverse).ok());
}

TEST(FingerprintTable, EmptyTableHoldsNothing) {
  const FingerprintTable t = make(1000);
  EXPECT_EQ(t.size(), 0U);
  EXPECT_EQ(t.universe(), 1000U);
  EXPECT_FALSE(t.contains(0));
  EXPECT_EQ(t.count(999), 0U);
  EXPECT_EQ(t.rank(500), 0U);
  EXPECT_TRUE(t.sorted().empty());
  EXPECT_EQ(t.adds_since_mark(), 0U);
}

TEST(FingerprintTable, KeepsRepeatsAndRanks) {
  FingerprintTable t = make(1 << 20);
  for (const std::uint64_t f : {70000U, 5U, 70000U, 65536U, 65535U, 5U, 70000U}) t.add(f);
  EXPECT_EQ(t.sorted(), (std::vector<std::uint64_t>{5, 5, 65535, 65536, 70000, 70000, 70000}));
  EXPECT_EQ(t.count(70000), 3U);
  EXPECT_EQ(t.count(6), 0U);
  EXPECT_EQ(t.rank(5), 0U);
  EXPECT_EQ(t.rank(6), 2U);
  EXPECT_EQ(t.rank(65536), 3U);
  EXPECT_EQ(t.rank(70000), 4U);
  EXPECT_EQ(t.rank(70001), 7U);
  EXPECT_EQ(t.rank(t.universe()), 7U);
  EXPECT_FALSE(t.remove(70000));
  EXPECT_EQ(t.count(70000), 2U);
  EXPECT_EQ(t.size(), 6U);
}

TEST(FingerprintTable, RemovingWhatIsNotHeldIsRefusedAndHarmless) {
  FingerprintTable t = make(100);
  t.add(7);
  EXPECT_EQ(t.remove(8), FilterErrc::remove_underflow);
  EXPECT_EQ(t.remove(100), FilterErrc::remove_underflow);
  EXPECT_EQ(t.remove(1ULL << 39), FilterErrc::remove_underflow);
  EXPECT_FALSE(t.remove(7));
  EXPECT_EQ(t.remove(7), FilterErrc::remove_underflow);
  EXPECT_EQ(t.size(), 0U);
  EXPECT_TRUE(t.sorted().empty());
}

TEST(FingerprintTable, UniverseOneHoldsOnlyZero) {
  FingerprintTable t = make(1);
  t.add(0);
  t.add(0);
  EXPECT_EQ(t.count(0), 2U);
  EXPECT_EQ(t.rank(0), 0U);
  EXPECT_EQ(t.rank(1), 2U);
  EXPECT_EQ(t.sorted(), (std::vector<std::uint64_t>{0, 0}));
}

TEST(FingerprintTable, LargestUniverseUsesMemoryOnlyWhereItHolds) {
  FingerprintTable t = make(kMaxUniverse);
  EXPECT_LT(t.memory_bytes(), 200'000U);  // a page pointer per 2^26 fingerprints
  t.add(kMaxUniverse - 1);
  t.add(0);
  t.add(kMaxUniverse / 2);
  EXPECT_EQ(t.sorted(), (std::vector<std::uint64_t>{0, kMaxUniverse / 2, kMaxUniverse - 1}));
  EXPECT_EQ(t.rank(kMaxUniverse - 1), 2U);
  EXPECT_LT(t.memory_bytes(), 300'000U);
}

TEST(FingerprintTable, CopiesAreIndependent) {
  FingerprintTable a = make(1 << 20);
  a.add(3);
  FingerprintTable b = a;
  b.add(4);
  EXPECT_FALSE(b.remove(3));
  EXPECT_EQ(a.sorted(), (std::vector<std::uint64_t>{3}));
  EXPECT_EQ(b.sorted(), (std::vector<std::uint64_t>{4}));
  a = b;
  EXPECT_EQ(a.sorted(), (std::vector<std::uint64_t>{4}));
}

// The issue's load: n = 10^6 at p = 0.24%, U = ceil(n / p), hashed URL keys.
TEST(FingerprintTable, AtMostThreeBytesPerUrlAtTheIssuesLoad) {
  const std::uint64_t n = 1'000'000;
  const std::uint64_t universe = fingerprint_universe(n, 0.0024).value();
  FingerprintTable t = make(universe);
  t.mark();
  for (std::uint64_t i = 0; i < n; ++i) t.add(fingerprint(Hasher{}(testing::url_key(i)), universe));
  EXPECT_EQ(t.size(), n);
  (void)t.take_delta();  // the change log is emptied as a publisher would
  const double per_url = static_cast<double>(t.memory_bytes()) / static_cast<double>(n);
  EXPECT_LE(per_url, 3.0);
  EXPECT_GE(per_url, 2.0);  // 16 bits an element at least: the count is honest
  std::printf("FingerprintTable at n = 10^6, p = 0.24%%: %.3f bytes per URL\n", per_url);
  // Churn (each eviction followed by an insert) keeps it there.
  for (std::uint64_t i = 0; i < n / 10; ++i) {
    ASSERT_FALSE(t.remove(fingerprint(Hasher{}(testing::url_key(i)), universe)));
    t.add(fingerprint(Hasher{}(testing::url_key(n + i)), universe));
  }
  (void)t.take_delta();
  EXPECT_LE(static_cast<double>(t.memory_bytes()) / static_cast<double>(n), 3.0);
}

TEST(FingerprintTable, DeltaNamesRanksInTheMarkedSet) {
  FingerprintTable t = make(1000);
  for (const std::uint64_t f : {10U, 20U, 20U, 30U, 40U}) t.add(f);
  t.mark();
  EXPECT_FALSE(t.remove(20));
  EXPECT_FALSE(t.remove(20));
  EXPECT_FALSE(t.remove(40));
  t.add(5);
  t.add(35);
  t.add(35);
  const auto delta = t.take_delta();
  ASSERT_TRUE(delta.ok());
  EXPECT_EQ(delta->removed_ranks, (std::vector<std::uint64_t>{1, 2, 4}));
  EXPECT_EQ(delta->added, (std::vector<std::uint64_t>{5, 35, 35}));
  EXPECT_EQ(applied({10, 20, 20, 30, 40}, *delta), t.sorted());
}

TEST(FingerprintTable, AnAddAndARemoveOfOneFingerprintCancel) {
  FingerprintTable t = make(1000);
  t.add(10);
  t.mark();
  t.add(7);
  EXPECT_FALSE(t.remove(7));
  EXPECT_FALSE(t.remove(10));
  t.add(10);
  const auto delta = t.take_delta();
  ASSERT_TRUE(delta.ok());
  EXPECT_EQ(*delta, FingerprintDelta{});
  EXPECT_EQ(t.adds_since_mark(), 0U);
}

TEST(FingerprintTable, TakeDeltaWithoutMarkOverflows) {
  FingerprintTable t = make(1000);
  t.add(1);
  EXPECT_EQ(t.take_delta().error(), FilterErrc::change_log_overflow);
  EXPECT_EQ(t.adds_since_mark(), 1U);
}

TEST(FingerprintTable, MoreChangesThanTheLogHoldsOverflowUntilTheNextMark) {
  FingerprintTable t = make(1000);
  t.mark(3);
  t.add(1);
  t.add(2);
  EXPECT_FALSE(t.remove(1));
  EXPECT_EQ(t.adds_since_mark(), 2U);
  const auto three = t.take_delta();  // exactly the cap: kept
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->added, (std::vector<std::uint64_t>{2}));
  for (int i = 0; i < 4; ++i) t.add(3);
  EXPECT_EQ(t.take_delta().error(), FilterErrc::change_log_overflow);
  EXPECT_EQ(t.take_delta().error(), FilterErrc::change_log_overflow);  // nothing marked
  EXPECT_EQ(t.adds_since_mark(), 4U);
  t.mark(3);
  t.add(4);
  const auto after = t.take_delta();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->added, (std::vector<std::uint64_t>{4}));
}

// The model: a std::multiset. Fingerprints from a universe small enough that
// repeats are common, spread over several runs and pages.
struct ModelCase {
  std::uint64_t universe;
  std::uint64_t distinct;  // fingerprints drawn from this many values spread over the universe
  std::uint64_t ops;
  std::uint64_t seed;
};

class FingerprintTableModel : public ::testing::TestWithParam<ModelCase> {};

TEST_P(FingerprintTableModel, MatchesAMultisetAndItsDeltasReproduceIt) {
  const ModelCase c = GetParam();
  FingerprintTable t = make(c.universe);
  std::multiset<std::uint64_t> model;
  std::mt19937_64 rng(c.seed);
  std::vector<std::uint64_t> values(c.distinct);
  for (auto& v : values) v = rng() % c.universe;
  values.back() = c.universe - 1;
  values.front() = 0;
  t.mark(std::size_t{1} << 16);
  std::vector<std::uint64_t> marked;
  std::uint64_t checkpoints = 0;
  std::uint64_t nonempty_deltas = 0;
  const std::uint64_t target = c.distinct;  // the population swings around this
  for (std::uint64_t op = 0; op < c.ops; ++op) {
    const std::uint64_t f = values[rng() % values.size()];
    const bool add = model.size() < target / 2 || (model.size() < 2 * target && rng() % 2 == 0);
    if (add) {
      t.add(f);
      model.insert(f);
    } else {
      const auto it = model.find(f);
      const std::error_code e = t.remove(f);
      if (it == model.end()) {
        ASSERT_EQ(e, FilterErrc::remove_underflow);
      } else {
        ASSERT_FALSE(e);
        model.erase(it);
      }
    }
    if (rng() % 20'000 != 0) continue;
    ++checkpoints;
    ASSERT_EQ(t.size(), model.size());
    const std::vector<std::uint64_t> now(model.begin(), model.end());
    ASSERT_EQ(t.sorted(), now);
    for (int probe = 0; probe < 200; ++probe) {
      const std::uint64_t g = probe % 2 == 0 ? values[rng() % values.size()] : rng() % c.universe;
      const auto lower =
          static_cast<std::uint64_t>(std::lower_bound(now.begin(), now.end(), g) - now.begin());
      ASSERT_EQ(t.rank(g), lower) << g;
      ASSERT_EQ(t.count(g), model.count(g)) << g;
      ASSERT_EQ(t.contains(g), model.count(g) > 0) << g;
    }
    const auto delta = t.take_delta();
    if (!delta.ok()) {
      ASSERT_EQ(delta.error(), FilterErrc::change_log_overflow);
    } else {
      ASSERT_TRUE(std::is_sorted(delta->added.begin(), delta->added.end()));
      ASSERT_TRUE(std::adjacent_find(delta->removed_ranks.begin(), delta->removed_ranks.end(),
                                     std::greater_equal<>()) == delta->removed_ranks.end());
      ASSERT_EQ(applied(marked, *delta), now);
      // The same sizes as the difference of the two sets (which names the last copies
      // of a repeated fingerprint where take_delta names the first), and as good.
      const auto difference = fingerprint_difference(marked, now);
      ASSERT_EQ(difference.added, delta->added);
      ASSERT_EQ(difference.removed_ranks.size(), delta->removed_ranks.size());
      ASSERT_EQ(applied(marked, difference), now);
      nonempty_deltas += delta->removed_ranks.empty() ? 0 : 1;
    }
    t.mark(std::size_t{1} << 16);
    marked = now;
  }
  EXPECT_GT(checkpoints, 10U);
  EXPECT_GT(nonempty_deltas, 5U);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, FingerprintTableModel,
    ::testing::Values(ModelCase{1000, 300, 1'000'000, 1},            // one run, many repeats
                      ModelCase{416'666'667, 20'000, 1'500'000, 2},  // the issue's U, many pages
                      ModelCase{kMaxUniverse, 5'000, 500'000, 3},    // sparse pages
                      ModelCase{1 << 21, 50'000, 1'000'000, 4}));    // crowded runs

}  // namespace
}  // namespace sumcache::filters
