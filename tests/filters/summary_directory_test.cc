#include "filters/summary_directory.h"

#include <gtest/gtest.h>

#include <vector>

#include "filters/filter_error.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

using sumcache::testing::url_key;

BloomFilter make(BloomParams params, Hasher hasher = {}) {
  auto f = BloomFilter::create(params, hasher);
  EXPECT_TRUE(f.ok());
  return std::move(f).value();
}

// Peer `slot`'s summary: keys slot*1000 .. slot*1000 + count - 1.
BloomFilter summary_of(unsigned slot, BloomParams params, std::uint64_t count = 300) {
  BloomFilter f = make(params);
  for (std::uint64_t i = 0; i < count; ++i) f.add(url_key(std::uint64_t{slot} * 1000 + i));
  return f;
}

std::uint64_t expected_claims(const std::vector<BloomFilter>& filters,
                              const std::vector<unsigned>& slots, const Hash128& h) {
  std::uint64_t claimed = 0;
  for (std::size_t i = 0; i < filters.size(); ++i) {
    if (filters[i].contains(h)) claimed |= std::uint64_t{1} << slots[i];
  }
  return claimed;
}

// Every slot's summary holds its own keys; queries cover every slot's keys and
// as many absent ones, so both true claims and false positives are compared.
void expect_agreement(const std::vector<unsigned>& slots, const std::vector<BloomParams>& params) {
  SummaryDirectory dir;
  std::vector<BloomFilter> filters;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    filters.push_back(summary_of(slots[i], params[i % params.size()]));
    ASSERT_FALSE(dir.set(slots[i], filters.back()));
  }
  const std::uint64_t keys = 64'000;
  std::uint64_t claimed_any = 0;
  for (std::uint64_t i = 0; i < 2 * keys; i += 7) {
    const Hash128 h = Hasher{}(url_key(i < keys ? i : 5'000'000 + i));
    const std::uint64_t want = expected_claims(filters, slots, h);
    ASSERT_EQ(dir.claims(h), want) << "key " << i;
    claimed_any |= want;
  }
  std::uint64_t all_slots = 0;
  for (unsigned s : slots) all_slots |= std::uint64_t{1} << s;
  EXPECT_EQ(claimed_any, all_slots);
}

std::vector<unsigned> first_slots(unsigned count) {
  std::vector<unsigned> slots;
  for (unsigned s = 0; s < count; ++s) slots.push_back(s);
  return slots;
}

const BloomParams kSmall{4800, 4};  // 16 bits per key for 300 keys

TEST(SummaryDirectory, OneSlotAgreesWithItsBloomFilter) { expect_agreement({0}, {kSmall}); }
TEST(SummaryDirectory, LastSlotAloneAgreesWithItsBloomFilter) { expect_agreement({63}, {kSmall}); }
TEST(SummaryDirectory, TwoSlotsAgreeWithTheirBloomFilters) { expect_agreement({0, 37}, {kSmall}); }
TEST(SummaryDirectory, SixtyThreeSlotsAgree) { expect_agreement(first_slots(63), {kSmall}); }
TEST(SummaryDirectory, SixtyFourSlotsAgree) { expect_agreement(first_slots(64), {kSmall}); }

TEST(SummaryDirectory, MixedParamsAgreeWithEachFilter) {
  expect_agreement(first_slots(64), {kSmall, {2400, 3}, {9601, 7}, {64, 1}});
}

TEST(SummaryDirectory, EmptyDirectoryClaimsNothing) {
  SummaryDirectory dir;
  EXPECT_EQ(dir.claims("http://a/"), 0U);
  EXPECT_FALSE(dir.has(0));
  EXPECT_EQ(dir.params_of(0), BloomParams{});
  EXPECT_EQ(dir.memory_bytes(), 0U);
}

TEST(SummaryDirectory, SlotsWithEqualParamsShareOneArray) {
  SummaryDirectory dir;
  ASSERT_FALSE(dir.set(0, summary_of(0, kSmall)));
  EXPECT_EQ(dir.memory_bytes(), kSmall.m * 8);
  ASSERT_FALSE(dir.set(9, summary_of(9, kSmall)));
  EXPECT_EQ(dir.memory_bytes(), kSmall.m * 8);
  ASSERT_FALSE(dir.set(5, summary_of(5, {100, 2})));
  EXPECT_EQ(dir.memory_bytes(), (kSmall.m + 100) * 8);
  EXPECT_EQ(dir.params_of(5), (BloomParams{100, 2}));
  EXPECT_EQ(dir.params_of(9), kSmall);
}

TEST(SummaryDirectory, ArrayWithNoSlotLeftIsFreed) {
  SummaryDirectory dir;
  ASSERT_FALSE(dir.set(0, summary_of(0, kSmall)));
  ASSERT_FALSE(dir.set(1, summary_of(1, {100, 2})));
  dir.clear(1);
  EXPECT_EQ(dir.memory_bytes(), kSmall.m * 8);
  ASSERT_FALSE(dir.set(0, summary_of(0, {200, 2})));  // moves slot 0 away from kSmall
  EXPECT_EQ(dir.memory_bytes(), 200U * 8);
  EXPECT_EQ(dir.params_of(0), (BloomParams{200, 2}));
}

TEST(SummaryDirectory, SetReplacesTheSummaryInPlaceAndAcrossParams) {
  SummaryDirectory dir;
  const BloomFilter first = summary_of(3, kSmall);
  const BloomFilter second = summary_of(40, kSmall);
  const BloomFilter third = summary_of(41, {7000, 5});
  for (const BloomFilter* f : {&first, &second, &third, &first}) {
    ASSERT_FALSE(dir.set(3, *f));
    for (std::uint64_t i = 0; i < 50'000; i += 3) {
      const Hash128 h = Hasher{}(url_key(i));
      ASSERT_EQ(dir.claims(h) != 0, f->contains(h)) << i;
    }
  }
}

TEST(SummaryDirectory, ApplyEqualsSetOfTheChangedFilter) {
  const BloomFilter before = summary_of(0, kSmall);
  BloomFilter after = summary_of(0, kSmall, 150);  // half the keys evicted
  for (std::uint64_t i = 0; i < 200; ++i) after.add(url_key(70'000 + i));
  std::vector<BitChange> delta;
  for (std::uint64_t b = 0; b < kSmall.m; ++b) {
    if (before.test_bit(b) != after.test_bit(b)) delta.push_back({b, after.test_bit(b)});
  }
  ASSERT_FALSE(delta.empty());

  SummaryDirectory applied;
  SummaryDirectory replaced;
  ASSERT_FALSE(applied.set(2, summary_of(2, kSmall)));  // a neighbour in the same words
  ASSERT_FALSE(replaced.set(2, summary_of(2, kSmall)));
  ASSERT_FALSE(applied.set(7, before));
  ASSERT_FALSE(applied.apply(7, delta));
  ASSERT_FALSE(replaced.set(7, after));
  for (std::uint64_t i = 0; i < 80'000; i += 5) {
    const Hash128 h = Hasher{}(url_key(i));
    ASSERT_EQ(applied.claims(h), replaced.claims(h)) << i;
  }
}

TEST(SummaryDirectory, ClearedSlotClaimsNothingAndOthersStay) {
  SummaryDirectory dir;
  ASSERT_FALSE(dir.set(0, summary_of(0, kSmall)));
  ASSERT_FALSE(dir.set(1, summary_of(1, kSmall)));
  dir.clear(0);
  EXPECT_FALSE(dir.has(0));
  EXPECT_TRUE(dir.has(1));
  for (std::uint64_t i = 0; i < 300; ++i) {
    EXPECT_EQ(dir.claims(url_key(i)) & 1U, 0U) << i;
    EXPECT_EQ(dir.claims(url_key(1000 + i)) & 2U, 2U) << i;
  }
  dir.clear(0);   // already empty
  dir.clear(64);  // invalid
  EXPECT_EQ(dir.apply(0, {}), FilterErrc::no_summary);
}

TEST(SummaryDirectory, SlotSetAgainAfterClearHasOnlyItsNewBits) {
  SummaryDirectory dir;
  ASSERT_FALSE(dir.set(0, summary_of(0, kSmall)));
  ASSERT_FALSE(dir.set(1, summary_of(1, kSmall)));  // keeps the array alive
  dir.clear(0);
  const BloomFilter fresh = make(kSmall);
  ASSERT_FALSE(dir.set(0, fresh));
  for (std::uint64_t i = 0; i < 300; ++i) EXPECT_EQ(dir.claims(url_key(i)) & 1U, 0U) << i;
}

TEST(SummaryDirectory, EligibleMaskLimitsTheAnswer) {
  SummaryDirectory dir;
  BloomFilter shared = make(kSmall);
  shared.add("http://shared/");
  for (unsigned s : {0U, 5U, 63U}) ASSERT_FALSE(dir.set(s, shared));
  ASSERT_FALSE(dir.set(6, make({300, 3})));
  const std::uint64_t all = 1U | (1U << 5) | (std::uint64_t{1} << 63);
  EXPECT_EQ(dir.claims("http://shared/"), all);
  EXPECT_EQ(dir.claims("http://shared/", 1U << 5), 1U << 5);
  EXPECT_EQ(dir.claims("http://shared/", all & ~1U), all & ~1U);
  EXPECT_EQ(dir.claims("http://shared/", 0), 0U);
  EXPECT_EQ(dir.claims("http://shared/", 1U << 6), 0U);
}

TEST(SummaryDirectory, ErrorsLeaveTheDirectoryUnchanged) {
  SummaryDirectory dir;
  const BloomFilter f = summary_of(0, kSmall);
  EXPECT_EQ(dir.set(64, f), FilterErrc::invalid_slot);
  EXPECT_EQ(dir.apply(64, {}), FilterErrc::invalid_slot);
  auto md5 = Hasher::create(HashId::md5);
  ASSERT_TRUE(md5.ok());
  EXPECT_EQ(dir.set(0, make(kSmall, *md5)), FilterErrc::parameter_mismatch);
  EXPECT_FALSE(dir.has(0));

  ASSERT_FALSE(dir.set(0, f));
  const std::vector<BitChange> past_end{{0, true}, {kSmall.m, true}};
  EXPECT_EQ(dir.apply(0, past_end), FilterErrc::position_out_of_range);
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const Hash128 h = Hasher{}(url_key(i));
    ASSERT_EQ(dir.claims(h) != 0, f.contains(h)) << i;
  }
  EXPECT_FALSE(dir.has(64));
  EXPECT_EQ(dir.params_of(64), BloomParams{});
}

TEST(SummaryDirectory, SummaryAboveTheCapIsRefused) {
  SummaryDirectory dir(Hasher{}, 1000);
  EXPECT_EQ(dir.set(0, make({1001, 2})), FilterErrc::too_large);
  EXPECT_FALSE(dir.set(0, make({1000, 2})));
}

TEST(SummaryDirectory, SeededHasherIsAccepted) {
  auto seeded = Hasher::create(HashId::xxh3_128, 42);
  ASSERT_TRUE(seeded.ok());
  SummaryDirectory dir(*seeded);
  BloomFilter f = make(kSmall, *seeded);
  f.add("http://a/");
  ASSERT_FALSE(dir.set(1, f));
  EXPECT_EQ(dir.claims("http://a/"), 2U);
  EXPECT_EQ(dir.set(2, make(kSmall)), FilterErrc::parameter_mismatch);
}

}  // namespace
}  // namespace sumcache::filters
