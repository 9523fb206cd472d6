// DleftCountingFilter: parameters and their errors, add/remove/contains,
// refused removes, saturation, bucket overflow, the leftmost-least-loaded
// placement and the per-subtable permutation (Bonomi et al., ESA 2006).
#include "filters/dleft_counting_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "filters/counting_bloom_filter.h"
#include "filters/filter_error.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

Hash128 key_hash(std::uint64_t i) { return Hasher{}(sumcache::testing::url_key(i)); }

DleftCountingFilter make(DleftParams params) {
  return std::move(DleftCountingFilter::create(params)).value();
}

std::uint64_t total_load(const DleftCountingFilter& f) {
  std::uint64_t load = 0;
  for (std::uint32_t i = 0; i < f.params().subtables; ++i) {
    for (std::uint64_t b = 0; b < f.params().buckets; ++b) load += f.bucket_load(i, b);
  }
  return load;
}

TEST(DleftParams, DefaultsAreTheSeeds) {
  const DleftParams d;
  EXPECT_EQ(d.subtables, 4U);
  EXPECT_EQ(d.cells_per_bucket, 8U);
  EXPECT_EQ(d.counter_bits, 2U);
  EXPECT_EQ(d.remainder_bits, 14U);
}

// The seed: n / 24 buckets per subtable (6 keys per bucket at d = 4), and r
// the least with 1 - (1 - 1/(B 2^r))^n <= p.
TEST(DleftParams, ForCapacityTakesTheSeedsLoadAndTheLeastRemainder) {
  auto params = dleft_params(1'000'000, 0.01);
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(params->buckets, 41'667U);
  EXPECT_EQ(params->remainder_bits, 12U);  // 24 / 2^12 = 0.59%; 2^11 gives 1.2%
  EXPECT_LE(expected_fpr(*params, 1'000'000), 0.01);
  DleftParams one_less = *params;
  one_less.remainder_bits = 11;
  EXPECT_GT(expected_fpr(one_less, 1'000'000), 0.01);
  auto tight = dleft_params(1'000'000, 0.001);
  ASSERT_TRUE(tight.ok());
  EXPECT_EQ(tight->remainder_bits, 15U);
}

TEST(DleftParams, InvalidParametersAreErrors) {
  const auto error = [](DleftParams p) { return validate(p); };
  const DleftParams ok{4, 16, 8, 14, 2};
  EXPECT_FALSE(error(ok));
  auto p = ok;
  p.subtables = 0;
  EXPECT_EQ(error(p), FilterErrc::invalid_hashes);
  p.subtables = kMaxSubtables + 1;
  EXPECT_EQ(error(p), FilterErrc::invalid_hashes);
  p = ok;
  p.buckets = 0;
  EXPECT_EQ(error(p), FilterErrc::invalid_bits);
  p = ok;
  p.cells_per_bucket = 0;
  EXPECT_EQ(error(p), FilterErrc::invalid_bits);
  p.cells_per_bucket = kMaxCellsPerBucket + 1;
  EXPECT_EQ(error(p), FilterErrc::invalid_bits);
  p = ok;
  p.remainder_bits = 0;
  EXPECT_EQ(error(p), FilterErrc::invalid_bits);
  p.remainder_bits = kMaxRemainderBits + 1;
  EXPECT_EQ(error(p), FilterErrc::invalid_bits);
  p = ok;
  p.counter_bits = 0;
  EXPECT_EQ(error(p), FilterErrc::invalid_bits);
  p.counter_bits = kMaxCounterBits + 1;
  EXPECT_EQ(error(p), FilterErrc::invalid_bits);
  p = ok;
  p.buckets = kMaxBuckets + 1;
  EXPECT_EQ(error(p), FilterErrc::size_overflow);
  p.buckets = kMaxBuckets;  // 4 * 2^32 * 8 * 16 bits = 2^41 > kMaxBits
  EXPECT_EQ(error(p), FilterErrc::size_overflow);
  EXPECT_EQ(DleftCountingFilter::create(p).error(), FilterErrc::size_overflow);

  EXPECT_EQ(dleft_params(0, 0.01).error(), FilterErrc::invalid_entries);
  for (double bad : {0.0, 1.0, -0.5, 2.0, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_EQ(dleft_params(1000, bad).error(), FilterErrc::invalid_fpr) << bad;
    EXPECT_EQ(DleftCountingFilter::for_capacity(1000, bad).error(), FilterErrc::invalid_fpr);
  }
  // 24 keys per bucket row need r > 32 below 24 / 2^32.
  EXPECT_EQ(dleft_params(1000, 1e-12).error(), FilterErrc::invalid_fpr);
  EXPECT_EQ(dleft_params(std::uint64_t{1} << 62, 0.01).error(), FilterErrc::size_overflow);
  EXPECT_EQ(DleftCountingFilter::for_capacity(0, 0.01).error(), FilterErrc::invalid_entries);
}

TEST(DleftCountingFilter, HoldsWhatWasAddedUntilRemoved) {
  auto f = DleftCountingFilter::for_capacity(2000, 1e-6).value();
  for (std::uint64_t i = 0; i < 2000; ++i) ASSERT_FALSE(f.add(key_hash(i)));
  EXPECT_EQ(f.size(), 2000U);
  EXPECT_EQ(f.occupied_cells(), 2000U);
  EXPECT_EQ(total_load(f), 2000U);
  for (std::uint64_t i = 0; i < 2000; ++i) {
    ASSERT_TRUE(f.contains(key_hash(i)));
    ASSERT_EQ(f.count(key_hash(i)), 1U);
  }
  for (std::uint64_t i = 0; i < 2000; i += 2) ASSERT_FALSE(f.remove(key_hash(i)));
  for (std::uint64_t i = 0; i < 2000; ++i) ASSERT_EQ(f.contains(key_hash(i)), i % 2 == 1) << i;
  for (std::uint64_t i = 1; i < 2000; i += 2) ASSERT_FALSE(f.remove(key_hash(i)));
  EXPECT_EQ(f.size(), 0U);
  EXPECT_EQ(f.occupied_cells(), 0U);
  EXPECT_EQ(total_load(f), 0U);
  EXPECT_EQ(f.refused_adds(), 0U);
  EXPECT_EQ(f.refused_removes(), 0U);
}

TEST(DleftCountingFilter, StringKeysHashWithTheFiltersHasher) {
  auto f = DleftCountingFilter::for_capacity(100, 0.001).value();
  const std::string key = sumcache::testing::url_key(7);
  ASSERT_FALSE(f.add(key));
  EXPECT_TRUE(f.contains(f.hasher()(key)));
  EXPECT_EQ(f.count(key_hash(7)), 1U);
  ASSERT_FALSE(f.remove(key));
  EXPECT_FALSE(f.contains(key));
}

TEST(DleftCountingFilter, RemoveOfAnAbsentKeyIsRefusedCountedAndHarmless) {
  auto f = DleftCountingFilter::for_capacity(1000, 1e-6).value();
  for (std::uint64_t i = 0; i < 500; ++i) ASSERT_FALSE(f.add(key_hash(i)));
  ASSERT_FALSE(f.add(key_hash(3)));
  for (std::uint64_t i = 500; i < 600; ++i) {
    EXPECT_EQ(f.remove(key_hash(i)), FilterErrc::remove_underflow);
  }
  EXPECT_EQ(f.refused_removes(), 100U);
  EXPECT_EQ(f.size(), 501U);
  EXPECT_EQ(f.occupied_cells(), 500U);
  for (std::uint64_t i = 0; i < 500; ++i) ASSERT_EQ(f.count(key_hash(i)), i == 3 ? 2U : 1U);
}

// 2-bit counters hold 1 to 3 (0 marks an empty cell). A saturated counter has
// lost count of its keys: it stays on add and on remove, so that no remove
// can empty a cell that keys still need.
TEST(DleftCountingFilter, CountersSaturateAndSaturatedCountersStay) {
  auto f = DleftCountingFilter::for_capacity(100, 0.001).value();
  ASSERT_EQ(f.max_count(), 3U);
  const Hash128 h = key_hash(1);
  ASSERT_FALSE(f.add(h));
  ASSERT_FALSE(f.add(h));
  EXPECT_EQ(f.count(h), 2U);
  EXPECT_EQ(f.saturated_counters(), 0U);
  ASSERT_FALSE(f.add(h));
  EXPECT_EQ(f.count(h), 3U);
  EXPECT_EQ(f.saturated_counters(), 1U);
  ASSERT_FALSE(f.add(h));
  EXPECT_EQ(f.size(), 3U);
  for (int i = 0; i < 10; ++i) ASSERT_FALSE(f.remove(h));
  EXPECT_EQ(f.count(h), 3U);
  EXPECT_TRUE(f.contains(h));
  EXPECT_EQ(f.saturated_counters(), 1U);
  EXPECT_EQ(f.occupied_cells(), 1U);

  const Hash128 g = key_hash(2);  // below saturation, counts go back down
  ASSERT_FALSE(f.add(g));
  ASSERT_FALSE(f.add(g));
  ASSERT_FALSE(f.remove(g));
  EXPECT_TRUE(f.contains(g));
  ASSERT_FALSE(f.remove(g));
  EXPECT_FALSE(f.contains(g));
  EXPECT_EQ(f.remove(g), FilterErrc::remove_underflow);
}

TEST(DleftCountingFilter, OneBitCountersSaturateAtOnce) {
  auto f = make({2, 8, 4, 10, 1});
  ASSERT_EQ(f.max_count(), 1U);
  ASSERT_FALSE(f.add(key_hash(1)));
  EXPECT_EQ(f.saturated_counters(), 1U);
  ASSERT_FALSE(f.remove(key_hash(1)));
  EXPECT_TRUE(f.contains(key_hash(1)));
}

// 40-bit cells, 7 per bucket: groups of 3, 3 and 1 cells, most across two words.
TEST(DleftCountingFilter, WideCellsAcrossWordsCountTo255) {
  auto f = make({3, 5, 7, 32, 8});
  ASSERT_EQ(f.max_count(), 255U);
  for (std::uint64_t i = 0; i < 60; ++i) {
    for (std::uint64_t t = 0; t <= i % 4; ++t) ASSERT_FALSE(f.add(key_hash(i)));
  }
  for (std::uint64_t i = 0; i < 60; ++i) ASSERT_EQ(f.count(key_hash(i)), i % 4 + 1) << i;
  const Hash128 hot = key_hash(1000);
  for (int t = 0; t < 300; ++t) ASSERT_FALSE(f.add(hot));
  EXPECT_EQ(f.count(hot), 255U);
  for (std::uint64_t i = 0; i < 60; ++i) {
    for (std::uint64_t t = 0; t <= i % 4; ++t) ASSERT_FALSE(f.remove(key_hash(i)));
    ASSERT_FALSE(f.contains(key_hash(i)));
  }
  EXPECT_EQ(f.occupied_cells(), 1U);
  EXPECT_EQ(total_load(f), 1U);
}

TEST(DleftCountingFilter, AnAddIsRefusedWhenEveryCandidateBucketIsFull) {
  auto f = make({2, 1, 2, 20, 2});  // 4 cells in all
  for (std::uint64_t i = 0; i < 4; ++i) ASSERT_FALSE(f.add(key_hash(i)));
  EXPECT_EQ(f.add(key_hash(4)), FilterErrc::bucket_overflow);
  EXPECT_EQ(f.refused_adds(), 1U);
  EXPECT_FALSE(f.contains(key_hash(4)));
  EXPECT_EQ(f.size(), 4U);
  EXPECT_EQ(f.occupied_cells(), 4U);
  for (std::uint64_t i = 0; i < 4; ++i) EXPECT_EQ(f.count(key_hash(i)), 1U);
  ASSERT_FALSE(f.add(key_hash(2)));  // a held fingerprint still counts
  EXPECT_EQ(f.count(key_hash(2)), 2U);
  ASSERT_FALSE(f.remove(key_hash(0)));
  ASSERT_FALSE(f.add(key_hash(4)));
  EXPECT_TRUE(f.contains(key_hash(4)));
  EXPECT_EQ(f.refused_adds(), 1U);
}

// d-left insertion: a new fingerprint goes to the least loaded of its d
// candidate buckets, the leftmost subtable on ties.
TEST(DleftCountingFilter, ANewFingerprintGoesToTheLeftmostLeastLoadedBucket) {
  auto f = make({4, 8, 8, 16, 2});
  int ties = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    const Hash128 h = key_hash(i);
    if (f.contains(h)) continue;
    std::vector<std::uint32_t> before;
    for (std::uint32_t s = 0; s < 4; ++s) before.push_back(f.bucket_load(s, f.bucket_of(h, s)));
    const std::error_code ec = f.add(h);
    std::uint32_t least = 0;
    for (std::uint32_t s = 1; s < 4; ++s) least = before[s] < before[least] ? s : least;
    ties += std::count(before.begin(), before.end(), before[least]) > 1 ? 1 : 0;
    if (before[least] == 8) {
      ASSERT_EQ(ec, FilterErrc::bucket_overflow);
      continue;
    }
    ASSERT_FALSE(ec);
    for (std::uint32_t s = 0; s < 4; ++s) {
      ASSERT_EQ(f.bucket_load(s, f.bucket_of(h, s)), before[s] + (s == least ? 1U : 0U))
          << "key " << i << " subtable " << s;
    }
  }
  EXPECT_GT(ties, 10);
}

// The permutation: in each subtable, (bucket, remainder) names one true
// fingerprint, so a cell never answers for a key of another fingerprint.
TEST(DleftCountingFilter, EachSubtableMapsFingerprintsOneToOne) {
  auto f = make({4, 16, 8, 3, 2});  // U = 16 * 2^3 = 128 fingerprints
  std::map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> places;
  std::set<std::pair<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>>> seen;
  for (std::uint64_t i = 0; i < 4000; ++i) {
    const Hash128 h = key_hash(i);
    const std::uint64_t fp = f.fingerprint(h);
    ASSERT_LT(fp, 128U);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> at;
    for (std::uint32_t s = 0; s < 4; ++s) at.emplace_back(f.bucket_of(h, s), fp & 7);
    auto [it, fresh] = places.emplace(fp, at);
    ASSERT_EQ(it->second, at) << "one fingerprint, two places";
    if (fresh) {
      for (std::uint32_t s = 0; s < 4; ++s) ASSERT_TRUE(seen.insert({s, at[s]}).second);
    }
  }
  EXPECT_EQ(places.size(), 128U);
}

TEST(DleftCountingFilter, AKeyMatchesExactlyTheKeysOfItsFingerprint) {
  auto f = make({4, 16, 8, 3, 2});
  const Hash128 a = key_hash(0);
  ASSERT_FALSE(f.add(a));
  int same = 0;
  for (std::uint64_t i = 1; i < 3000; ++i) {
    const Hash128 b = key_hash(i);
    const bool twin = f.fingerprint(b) == f.fingerprint(a);
    ASSERT_EQ(f.contains(b), twin) << i;
    same += twin ? 1 : 0;
  }
  EXPECT_GT(same, 0);
  EXPECT_DOUBLE_EQ(f.expected_fpr(), 1.0 / 128);
}

// contains() reads a bucket as one 128-bit group, as groups of up to 120
// bits, and a short last group with 64-bit arithmetic: whichever the layout,
// a key is contained exactly when a key of its fingerprint was added. About
// 640 cells for 600 keys, so that buckets fill to their last cell.
TEST(DleftCountingFilter, ContainsIsFingerprintMembershipInEveryGroupLayout) {
  const DleftParams layouts[] = {
      {4, 20, 8, 12, 2},  // 14-bit cells: one 112-bit group
      {4, 20, 8, 14, 2},  // 16-bit cells: one 128-bit group
      {4, 20, 8, 15, 2},  // 17-bit cells: 7 + 1, the last in 64 bits
      {4, 20, 8, 27, 3},  // 30-bit cells: 4 + 4, both 120 bits
      {3, 30, 7, 32, 8},  // 40-bit cells: 3 + 3 + 1
      {3, 42, 5, 32, 8},  // 40-bit cells: 3 + 2, the last 80 bits
      {2, 40, 8, 5, 1},   // 6-bit cells, 1-bit counters
  };
  for (const DleftParams& params : layouts) {
    auto f = make(params);
    std::set<std::uint64_t> held;
    for (std::uint64_t i = 0; i < 600; ++i) {
      if (!f.add(key_hash(i))) held.insert(f.fingerprint(key_hash(i)));
    }
    ASSERT_EQ(f.occupied_cells(), held.size());
    for (std::uint64_t i = 0; i < 20'000; ++i) {
      const Hash128 h = key_hash(i);
      ASSERT_EQ(f.contains(h), held.contains(f.fingerprint(h)))
          << "key " << i << " with " << params.remainder_bits << "-bit remainders";
    }
  }
}

// At the seed's parameters the filter takes at most half the bytes of the
// 4-bit counting filter sized for the same n and p (the target).
TEST(DleftCountingFilter, TakesAtMostHalfTheCountingFiltersBytes) {
  for (double p : {0.01, 0.001}) {
    auto d = DleftCountingFilter::for_capacity(1'000'000, p).value();
    auto c = CountingBloomFilter::for_capacity(1'000'000, p).value();
    const DleftParams& dp = d.params();
    const std::uint64_t bits = std::uint64_t{dp.subtables} * dp.buckets * dp.cells_per_bucket *
                               (dp.remainder_bits + dp.counter_bits);
    EXPECT_EQ(d.memory_bytes(), ((bits + 63) / 64 + 2) * 8);
    EXPECT_LE(d.memory_bytes(), c.memory_bytes() / 2) << p;
  }
}

}  // namespace
}  // namespace sumcache::filters
