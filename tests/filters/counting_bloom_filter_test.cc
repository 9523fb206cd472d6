#include "filters/counting_bloom_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "filters/filter_error.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

using sumcache::testing::url_key;

CountingBloomFilter make(std::uint64_t m = 10'000, std::uint32_t k = 4, Hasher hasher = {}) {
  auto f = CountingBloomFilter::create({m, k}, hasher);
  EXPECT_TRUE(f.ok());
  return std::move(f).value();
}

std::vector<std::uint64_t> probes_of(std::string_view key, const BloomParams& params) {
  ProbeSequence probes(Hasher{}(key), params.m);
  std::vector<std::uint64_t> positions;
  for (std::uint32_t i = 0; i < params.k; ++i) positions.push_back(probes.next());
  return positions;
}

// The first key "key-N" whose k probes hit counter 0 exactly `hits_on_zero`
// times in a filter of two counters.
std::string key_hitting_counter_zero(std::uint32_t k, std::size_t hits_on_zero) {
  for (int n = 0;; ++n) {
    std::string key = "key-" + std::to_string(n);
    const auto positions = probes_of(key, {2, k});
    if (static_cast<std::size_t>(std::count(positions.begin(), positions.end(), 0U)) ==
        hits_on_zero) {
      return key;
    }
  }
}

std::vector<std::uint64_t> bit_diff(const BloomFilter& a, const BloomFilter& b) {
  std::vector<std::uint64_t> diff;
  for (std::uint64_t i = 0; i < a.params().m; ++i) {
    if (a.test_bit(i) != b.test_bit(i)) diff.push_back(i);
  }
  return diff;
}

std::uint64_t scan_count(const CountingBloomFilter& f, bool (*pred)(std::uint8_t)) {
  std::uint64_t n = 0;
  for (std::uint64_t i = 0; i < f.params().m; ++i) n += pred(f.counter(i)) ? 1 : 0;
  return n;
}

TEST(CountingBloomFilter, AddedKeysAreContainedAndEmptyFilterHoldsNothing) {
  CountingBloomFilter f = make(50'000, 5);
  EXPECT_FALSE(f.contains(url_key(0)));
  EXPECT_EQ(f.count_nonzero(), 0U);
  for (int i = 0; i < 5000; ++i) f.add(url_key(i));
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(f.contains(url_key(i))) << i;
}

TEST(CountingBloomFilter, HashedAndKeyedCallsAgree) {
  CountingBloomFilter f = make();
  f.add(Hasher{}("http://a/"));
  EXPECT_TRUE(f.contains("http://a/"));
  EXPECT_FALSE(f.remove(Hasher{}("http://a/")));
  EXPECT_FALSE(f.contains("http://a/"));
}

TEST(CountingBloomFilter, AddIncrementsEveryProbedCounterOncePerProbe) {
  CountingBloomFilter f = make(1000, 7);
  f.add("http://a/");
  f.add("http://a/");
  const auto positions = probes_of("http://a/", {1000, 7});
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const auto hits = std::count(positions.begin(), positions.end(), i);
    ASSERT_EQ(f.counter(i), 2 * hits) << i;
  }
}

TEST(CountingBloomFilter, RemoveUndoesAddExactly) {
  CountingBloomFilter f = make(10'000, 4);
  for (int i = 0; i < 100; ++i) f.add(url_key(i));
  const std::vector<std::uint8_t> before(f.counter_bytes().begin(), f.counter_bytes().end());
  f.add("http://extra/");
  EXPECT_FALSE(f.remove("http://extra/"));
  EXPECT_TRUE(std::ranges::equal(f.counter_bytes(), before));
  for (int i = 0; i < 100; ++i) ASSERT_FALSE(f.remove(url_key(i))) << i;
  EXPECT_EQ(f.count_nonzero(), 0U);
  EXPECT_TRUE(std::ranges::all_of(f.counter_bytes(), [](std::uint8_t b) { return b == 0; }));
}

TEST(CountingBloomFilter, RemovingOneKeyKeepsTheOthersThatShareItsCounters) {
  CountingBloomFilter f = make(64, 4);  // small: the keys' probes overlap
  for (int i = 0; i < 20; ++i) f.add(url_key(i));
  for (int i = 0; i < 10; ++i) ASSERT_FALSE(f.remove(url_key(i)));
  for (int i = 10; i < 20; ++i) EXPECT_TRUE(f.contains(url_key(i))) << i;
}

TEST(CountingBloomFilter, CountersSaturateAtFifteenAndStaySaturatedOnRemove) {
  CountingBloomFilter f = make(10'000, 4);
  const auto positions = probes_of("http://hot/", {10'000, 4});
  for (int i = 0; i < 20; ++i) f.add("http://hot/");
  for (std::uint64_t p : positions) EXPECT_EQ(f.counter(p), 15);
  EXPECT_EQ(f.saturated_counters(), 4U);
  for (int i = 0; i < 20; ++i) ASSERT_FALSE(f.remove("http://hot/")) << i;
  for (std::uint64_t p : positions) EXPECT_EQ(f.counter(p), 15);
  EXPECT_TRUE(f.contains("http://hot/"));
  EXPECT_EQ(f.saturated_counters(), 4U);
  EXPECT_EQ(f.refused_removes(), 0U);
}

TEST(CountingBloomFilter, SaturationDoesNotCarryIntoTheNeighbouringCounter) {
  CountingBloomFilter f = make(1, 1);
  for (int i = 0; i < 40; ++i) f.add("x");
  EXPECT_EQ(f.counter(0), 15);
  EXPECT_EQ(f.counter_bytes()[0], 0x0F);
}

TEST(CountingBloomFilter, RemoveOfNeverAddedKeyIsRefusedAndLeavesFilterByteIdentical) {
  CountingBloomFilter f = make(10'000, 4);
  for (int i = 0; i < 200; ++i) f.add(url_key(i));
  f.mark();
  f.add(url_key(200));
  const std::vector<std::uint8_t> bytes(f.counter_bytes().begin(), f.counter_bytes().end());
  const auto changes = f.changed_since_mark().value();
  const auto pending = f.pending_changes();
  const auto nonzero = f.count_nonzero();
  ASSERT_FALSE(f.contains("http://never-added/"));
  EXPECT_EQ(f.remove("http://never-added/"), FilterErrc::remove_underflow);
  EXPECT_EQ(f.refused_removes(), 1U);
  EXPECT_TRUE(std::ranges::equal(f.counter_bytes(), bytes));
  EXPECT_EQ(f.changed_since_mark().value(), changes);
  EXPECT_EQ(f.pending_changes(), pending);
  EXPECT_EQ(f.count_nonzero(), nonzero);
  EXPECT_EQ(f.remove("http://never-added/"), FilterErrc::remove_underflow);
  EXPECT_EQ(f.refused_removes(), 2U);
}

TEST(CountingBloomFilter, ProbesThatAllHitOneCounterEachTakeOneUnit) {
  CountingBloomFilter f = make(1, 4);
  f.add("a");
  EXPECT_EQ(f.counter(0), 4);
  EXPECT_FALSE(f.remove("b"));  // every key's 4 probes land on counter 0
  EXPECT_EQ(f.counter(0), 0);
  EXPECT_EQ(f.remove("a"), FilterErrc::remove_underflow);
  EXPECT_EQ(f.counter(0), 0);
}

TEST(CountingBloomFilter, RemoveIsRefusedWhenARepeatedProbeNeedsMoreThanTheCounterHolds) {
  const std::string two_two = key_hitting_counter_zero(4, 2);    // counters += (2, 2)
  const std::string three_one = key_hitting_counter_zero(4, 3);  // counters -= (3, 1)
  CountingBloomFilter f = make(2, 4);
  f.add(two_two);
  EXPECT_EQ(f.counter_bytes()[0], 0x22);
  // Every counter is nonzero, so the key looks present, yet counter 0 holds 2
  // and would need 3 decrements.
  ASSERT_TRUE(f.contains(three_one));
  EXPECT_EQ(f.remove(three_one), FilterErrc::remove_underflow);
  EXPECT_EQ(f.counter_bytes()[0], 0x22);
  EXPECT_EQ(f.refused_removes(), 1U);
  f.add(two_two);
  EXPECT_FALSE(f.remove(three_one));
  EXPECT_EQ(f.counter(0), 1);
  EXPECT_EQ(f.counter(1), 3);
  EXPECT_EQ(f.counter_bytes()[0], 0x31);
}

// Remove takes its units as it goes; the probe that finds zero comes after
// one that emptied counter 0, and both must be undone, the log included.
TEST(CountingBloomFilter, RefusedRemoveRestoresTheCountersItsEarlierProbesEmptiedAndLogsNothing) {
  const std::string one_three = key_hitting_counter_zero(4, 1);  // counters += (1, 3)
  const std::string three_one = key_hitting_counter_zero(4, 3);  // counters -= (3, 1)
  CountingBloomFilter f = make(2, 4);
  f.mark();
  f.add(one_three);
  ASSERT_EQ(f.counter_bytes()[0], 0x31);
  ASSERT_EQ(f.pending_changes(), 2U);
  EXPECT_EQ(f.remove(three_one), FilterErrc::remove_underflow);
  EXPECT_EQ(f.counter_bytes()[0], 0x31);
  EXPECT_EQ(f.count_nonzero(), 2U);
  EXPECT_EQ(f.pending_changes(), 2U);
  EXPECT_EQ(f.take_changes().value(), (std::vector<std::uint64_t>{0, 1}));
  EXPECT_FALSE(f.remove(one_three));
  EXPECT_EQ(f.take_changes().value(), (std::vector<std::uint64_t>{0, 1}));
}

TEST(CountingBloomFilter, NibbleLayoutPutsEvenCountersLowAndOddCountersHigh) {
  CountingBloomFilter f = make(1001, 5);
  for (int i = 0; i < 300; ++i) f.add(url_key(i));
  const auto bytes = f.counter_bytes();
  for (std::uint64_t i = 0; i < 1001; ++i) {
    ASSERT_EQ(f.counter(i), (bytes[i / 2] >> (4 * (i % 2))) & 0x0F) << i;
  }
  EXPECT_EQ(bytes[500] >> 4, 0);  // no counter 1001
}

TEST(CountingBloomFilter, MemoryIsHalfAByteForEachCounterRoundedUp) {
  for (std::uint64_t m : {1ULL, 2ULL, 3ULL, 1000ULL, 1001ULL, 9'585'059ULL}) {
    const CountingBloomFilter f = make(m, 4);
    EXPECT_EQ(f.memory_bytes(), (m + 1) / 2) << m;
    EXPECT_EQ(f.counter_bytes().size(), (m + 1) / 2) << m;
  }
}

TEST(CountingBloomFilter, BitViewEqualsBloomFilterOfTheSameKeys) {
  for (Hasher hasher :
       {Hasher{}, *Hasher::create(HashId::md5), *Hasher::create(HashId::xxh3_128, 77)}) {
    CountingBloomFilter counting = make(10'007, 5, hasher);
    auto plain = BloomFilter::create({10'007, 5}, hasher);
    ASSERT_TRUE(plain.ok());
    for (int i = 0; i < 2000; ++i) {
      counting.add(url_key(i));
      plain->add(url_key(i));
    }
    EXPECT_EQ(counting.bit_view(), *plain);
    EXPECT_EQ(counting.count_nonzero(), plain->count_set_bits());
  }
}

TEST(CountingBloomFilter, BitViewAfterRemovesEqualsBloomFilterOfTheRemainingKeys) {
  CountingBloomFilter counting = make(20'000, 4);
  auto remaining = BloomFilter::create({20'000, 4});
  ASSERT_TRUE(remaining.ok());
  for (int i = 0; i < 3000; ++i) counting.add(url_key(i));
  for (int i = 0; i < 3000; ++i) {
    if (i % 3 == 0) {
      ASSERT_FALSE(counting.remove(url_key(i)));
    } else {
      remaining->add(url_key(i));
    }
  }
  ASSERT_EQ(counting.saturated_counters(), 0U);  // else the views may differ, by design
  EXPECT_EQ(counting.bit_view(), *remaining);
}

TEST(CountingBloomFilter, NonzeroAndSaturatedCountsMatchAScanOfTheCounters) {
  CountingBloomFilter f = make(500, 6);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 400; ++i) f.add(url_key(i % 50));
    for (int i = 0; i < 300; ++i) ASSERT_FALSE(f.remove(url_key(i % 50)));
    EXPECT_EQ(f.count_nonzero(), scan_count(f, [](std::uint8_t c) { return c != 0; }));
    EXPECT_EQ(f.saturated_counters(), scan_count(f, [](std::uint8_t c) { return c == 15; }));
  }
  EXPECT_GT(f.saturated_counters(), 0U);
}

TEST(CountingBloomFilter, InvalidParametersAreRejected) {
  EXPECT_EQ(CountingBloomFilter::create({0, 4}).error(), FilterErrc::invalid_bits);
  EXPECT_EQ(CountingBloomFilter::create({kMaxBits + 1, 4}).error(), FilterErrc::invalid_bits);
  EXPECT_EQ(CountingBloomFilter::create({10, 0}).error(), FilterErrc::invalid_hashes);
  EXPECT_EQ(CountingBloomFilter::create({10, kMaxHashes + 1}).error(), FilterErrc::invalid_hashes);
  EXPECT_EQ(CountingBloomFilter::for_capacity(0, 0.01).error(), FilterErrc::invalid_entries);
  EXPECT_EQ(CountingBloomFilter::for_capacity(10, 1.0).error(), FilterErrc::invalid_fpr);
}

TEST(CountingBloomFilter, ForCapacityUsesTheOptimalParamsAndKeepsTheHasher) {
  const Hasher md5 = *Hasher::create(HashId::md5);
  auto f = CountingBloomFilter::for_capacity(1000, 0.01, md5);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->params(), *optimal_params(1000, 0.01));
  EXPECT_EQ(f->hasher(), md5);
  EXPECT_EQ(f->bit_view().hasher(), md5);
}

std::vector<std::uint64_t> sorted_probes(std::string_view key, const BloomParams& params) {
  auto positions = probes_of(key, params);
  std::ranges::sort(positions);
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

TEST(CountingBloomFilterChanges, FreshFilterLogsNothingUntilTheFirstMark) {
  CountingBloomFilter f = make(1'000'000, 4);
  const std::size_t log_bytes = f.change_log_bytes();
  EXPECT_FALSE(f.changes_logged());
  for (int i = 0; i < 20'000; ++i) f.add(url_key(i));  // a startup load
  EXPECT_EQ(f.change_log_bytes(), log_bytes);
  EXPECT_EQ(f.changed_since_mark().error(), FilterErrc::change_log_overflow);
  EXPECT_EQ(f.pending_changes(), f.change_log_cap() + 1);
  EXPECT_EQ(f.take_changes().error(), FilterErrc::change_log_overflow);  // push in full
  EXPECT_TRUE(f.changes_logged());
  EXPECT_EQ(f.pending_changes(), 0U);
  EXPECT_TRUE(f.changed_since_mark()->empty());
}

TEST(CountingBloomFilterChanges, AddThenRemoveOfTheSameKeyBeforeTakingReportsNoChange) {
  CountingBloomFilter f = make();
  f.mark();
  f.add("http://a/");
  EXPECT_FALSE(f.remove("http://a/"));
  EXPECT_EQ(f.pending_changes(), 0U);
  EXPECT_TRUE(f.take_changes()->empty());
}

TEST(CountingBloomFilterChanges, ChangesAreTheSortedExactDiffOfTheBitViews) {
  CountingBloomFilter f = make(100'000, 4);
  for (int i = 0; i < 400; ++i) f.add(url_key(i));
  f.mark();
  const BloomFilter before = f.bit_view();
  for (int i = 0; i < 400; i += 2) ASSERT_FALSE(f.remove(url_key(i)));
  for (int i = 400; i < 500; ++i) f.add(url_key(i));
  const auto changes = f.changed_since_mark().value();
  EXPECT_FALSE(changes.empty());
  EXPECT_TRUE(std::ranges::is_sorted(changes));
  EXPECT_EQ(changes, bit_diff(before, f.bit_view()));
  EXPECT_EQ(f.pending_changes(), changes.size());
}

TEST(CountingBloomFilterChanges, OnlyZeroToNonzeroTransitionsAreLogged) {
  CountingBloomFilter f = make(10'000, 4);
  f.mark();
  f.add("http://a/");
  const auto after_first = f.pending_changes();
  EXPECT_EQ(after_first, sorted_probes("http://a/", {10'000, 4}).size());
  for (int i = 0; i < 30; ++i) f.add("http://a/");  // 1 -> 15 and saturated: no transition
  for (int i = 0; i < 30; ++i) ASSERT_FALSE(f.remove("http://a/"));
  EXPECT_EQ(f.pending_changes(), after_first);
}

TEST(CountingBloomFilterChanges, TakeChangesReturnsTheChangesAndMarks) {
  CountingBloomFilter f = make(10'000, 4);
  f.mark();
  f.add("http://a/");
  const auto expected = sorted_probes("http://a/", {10'000, 4});
  EXPECT_EQ(f.take_changes().value(), expected);
  EXPECT_TRUE(f.changed_since_mark()->empty());
  EXPECT_EQ(f.pending_changes(), 0U);
  EXPECT_FALSE(f.remove("http://a/"));
  EXPECT_EQ(f.take_changes().value(), expected);
}

TEST(CountingBloomFilterChanges, FlappingLeavesNothingInTheLogAndKeepsTheRealChanges) {
  CountingBloomFilter f = make(10'000, 4);
  f.mark();
  f.add("http://stays/");
  const auto expected = sorted_probes("http://stays/", {10'000, 4});
  const std::size_t log_bytes = f.change_log_bytes();
  for (int i = 0; i < 100'000; ++i) {
    f.add("http://flaps/");
    ASSERT_FALSE(f.remove("http://flaps/"));
    ASSERT_EQ(f.pending_changes(), expected.size());
  }
  EXPECT_EQ(f.change_log_bytes(), log_bytes);
  EXPECT_EQ(f.changed_since_mark().value(), expected);
  EXPECT_EQ(f.take_changes().value(), expected);
}

TEST(CountingBloomFilterChanges, LogGrowsWithNetChurnAndStaysExact) {
  CountingBloomFilter f = make(1'000'000, 4);
  for (int i = 0; i < 1500; ++i) f.add(url_key(i));
  f.mark();
  const BloomFilter before = f.bit_view();
  EXPECT_EQ(f.change_log_bytes(), CountingBloomFilter::kInitialLogSlots * sizeof(std::uint64_t));
  for (int i = 1500; i < 3000; ++i) {
    f.add(url_key(i));
    ASSERT_FALSE(f.remove(url_key(i - 1500)));
  }
  const auto changes = f.changed_since_mark().value();
  EXPECT_GT(changes.size(), 10 * CountingBloomFilter::kInitialLogSlots);
  EXPECT_EQ(changes, bit_diff(before, f.bit_view()));
  EXPECT_EQ(f.pending_changes(), changes.size());
  // At most half full, and more than a quarter full at its peak.
  EXPECT_GE(f.change_log_bytes(), 2 * changes.size() * sizeof(std::uint64_t));
  EXPECT_LT(f.change_log_bytes(), 4 * changes.size() * sizeof(std::uint64_t));
  const std::size_t peak_bytes = f.change_log_bytes();
  EXPECT_EQ(f.take_changes().value(), changes);
  EXPECT_EQ(f.change_log_bytes(), peak_bytes);  // kept for a window like this one
}

TEST(CountingBloomFilterChanges, LogGivesBackABurstsTableWhenAQuieterWindowIsTaken) {
  CountingBloomFilter f = make(1'000'000, 4);
  f.mark();
  for (int i = 0; i < 1500; ++i) f.add(url_key(i));
  const std::size_t burst_bytes = f.change_log_bytes();
  EXPECT_GT(burst_bytes, 10 * CountingBloomFilter::kInitialLogSlots * sizeof(std::uint64_t));
  ASSERT_TRUE(f.take_changes().ok());
  EXPECT_EQ(f.change_log_bytes(), burst_bytes);
  for (int i = 0; i < 1500; i += 100) ASSERT_FALSE(f.remove(url_key(i)));
  ASSERT_TRUE(f.take_changes().ok());
  EXPECT_EQ(f.change_log_bytes(), CountingBloomFilter::kInitialLogSlots * sizeof(std::uint64_t));
}

// Adds keys one by one: each add makes exactly as many changes as it has
// distinct probes on zero counters, and the log overflows on the first add
// that would take it past its cap.
TEST(CountingBloomFilterChanges, LogOverflowsExactlyPastItsCapAndTheNextTakeStartsAgain) {
  CountingBloomFilter f = make(65'536, 4);
  ASSERT_EQ(f.change_log_cap(), 1024U);
  f.mark();
  std::size_t peak_bytes = 0;
  for (int i = 0; f.changes_logged(); ++i) {
    std::size_t zeros = 0;
    for (std::uint64_t p : sorted_probes(url_key(i), f.params()))
      zeros += f.counter(p) == 0 ? 1 : 0;
    const std::size_t before = f.pending_changes();
    f.add(url_key(i));
    if (f.changes_logged()) {
      ASSERT_EQ(f.pending_changes(), before + zeros);
    } else {
      EXPECT_GT(before + zeros, f.change_log_cap());
    }
    peak_bytes = std::max(peak_bytes, f.change_log_bytes());
  }
  EXPECT_LE(peak_bytes, f.memory_bytes());  // the log never outgrew the counters
  EXPECT_EQ(f.change_log_bytes(), CountingBloomFilter::kInitialLogSlots * sizeof(std::uint64_t));
  EXPECT_EQ(f.pending_changes(), f.change_log_cap() + 1);
  EXPECT_EQ(f.changed_since_mark().error(), FilterErrc::change_log_overflow);
  f.add("http://after-overflow/");
  EXPECT_EQ(f.take_changes().error(), FilterErrc::change_log_overflow);
  EXPECT_TRUE(f.changes_logged());
  EXPECT_FALSE(f.remove("http://after-overflow/"));
  EXPECT_EQ(f.take_changes().value(), sorted_probes("http://after-overflow/", f.params()));
}

TEST(CountingBloomFilterChanges, TinyFilterReservesTwoLogSlotsPerCounter) {
  EXPECT_EQ(make(12, 6).change_log_bytes(), 32 * sizeof(std::uint64_t));
}

TEST(CountingBloomFilterChanges, MarkDiscardsPendingChanges) {
  CountingBloomFilter f = make();
  f.mark();
  for (int i = 0; i < 100; ++i) f.add(url_key(i));
  f.mark();
  EXPECT_TRUE(f.take_changes()->empty());
  EXPECT_FALSE(f.remove(url_key(0)));
  EXPECT_FALSE(f.changed_since_mark()->empty());
}

}  // namespace
}  // namespace sumcache::filters
