// SummaryDirectory with Squid Cache Digests beside sumcache summaries
// (docs/filters.md, "Squid digests in the directory"): a Squid slot is probed
// at its store key's four words modulo the mask's bits, a summary slot at the
// hasher's positions, and one lookup answers for both.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "filters/filter_error.h"
#include "filters/summary_directory.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

using sumcache::testing::url_key;

// Stands in for Squid's MD5 store key of key i: 16 well-mixed bytes.
SquidKey squid_key_of(std::uint64_t i) {
  const Hash128 h = md5_128(url_key(i));
  SquidKey key{};
  std::memcpy(key.data(), &h.h1, 8);
  std::memcpy(key.data() + 8, &h.h2, 8);
  return key;
}

// A Squid digest's mask as Squid builds it (CacheDigest::add): the key's four
// positions set, bit b being bit b % 8 of byte b / 8.
struct SquidMask {
  explicit SquidMask(std::size_t bytes) : mask(bytes, 0) {}
  void add(const SquidKey& key) {
    for (auto p : squid_probe_positions(key, static_cast<std::uint32_t>(mask.size() * 8))) {
      mask[p / 8] = static_cast<std::uint8_t>(mask[p / 8] | (1U << (p % 8)));
    }
  }
  bool contains(const SquidKey& key) const {
    for (auto p : squid_probe_positions(key, static_cast<std::uint32_t>(mask.size() * 8))) {
      if ((mask[p / 8] & (1U << (p % 8))) == 0) return false;
    }
    return true;
  }
  std::vector<std::uint8_t> mask;
};

SquidMask squid_of(unsigned slot, std::size_t bytes, std::uint64_t count = 300) {
  SquidMask m(bytes);
  for (std::uint64_t i = 0; i < count; ++i) m.add(squid_key_of(std::uint64_t{slot} * 1000 + i));
  return m;
}

BloomFilter summary_of(unsigned slot, BloomParams params, std::uint64_t count = 300) {
  auto f = BloomFilter::create(params, Hasher{});
  EXPECT_TRUE(f.ok());
  for (std::uint64_t i = 0; i < count; ++i) f->add(url_key(std::uint64_t{slot} * 1000 + i));
  return std::move(f).value();
}

TEST(SquidProbePositions, AreTheKeysBigEndianWordsModuloTheBits) {
  const SquidKey key{0x00, 0x00, 0x00, 0x05, 0xff, 0xff, 0xff, 0xff,
                     0x01, 0x02, 0x03, 0x04, 0x80, 0x00, 0x00, 0x00};
  const std::array<std::uint32_t, 4> want{5, 4294967295U % 1000, 0x01020304U % 1000,
                                          0x80000000U % 1000};
  EXPECT_EQ(squid_probe_positions(key, 1000), want);
}

// Summaries and Squid digests of different sizes in one directory: every
// lookup equals the OR of each slot's own filter, true claims and false
// positives alike.
TEST(SummaryDirectorySquid, MixedSlotsAgreeWithEachFilter) {
  SummaryDirectory dir;
  const std::vector<unsigned> summary_slots{0, 5, 63};
  const std::vector<unsigned> squid_slots{1, 7, 40};
  const std::vector<std::size_t> squid_bytes{188, 188, 400};  // 5 bits per entry; and more
  std::vector<BloomFilter> summaries;
  std::vector<SquidMask> squids;
  for (unsigned s : summary_slots) {
    summaries.push_back(summary_of(s, {4800, 4}));
    ASSERT_FALSE(dir.set(s, summaries.back()));
  }
  for (std::size_t i = 0; i < squid_slots.size(); ++i) {
    squids.push_back(squid_of(squid_slots[i], squid_bytes[i]));
    ASSERT_FALSE(dir.set_squid(squid_slots[i], squids.back().mask));
  }
  ASSERT_TRUE(dir.probes_squid());
  std::uint64_t claimed_any = 0;
  for (std::uint64_t i = 0; i < 128'000; i += 7) {
    const std::uint64_t key = i < 64'000 ? i : 5'000'000 + i;
    const Hash128 h = Hasher{}(url_key(key));
    const SquidKey sk = squid_key_of(key);
    std::uint64_t want = 0;
    for (std::size_t s = 0; s < summary_slots.size(); ++s) {
      if (summaries[s].contains(h)) want |= std::uint64_t{1} << summary_slots[s];
    }
    for (std::size_t s = 0; s < squid_slots.size(); ++s) {
      if (squids[s].contains(sk)) want |= std::uint64_t{1} << squid_slots[s];
    }
    ASSERT_EQ(dir.claims(h, &sk), want) << "key " << key;
    claimed_any |= want;
  }
  EXPECT_EQ(claimed_any,
            (1ULL << 0) | (1ULL << 5) | (1ULL << 63) | (1ULL << 1) | (1ULL << 7) | (1ULL << 40));
}

TEST(SummaryDirectorySquid, WithoutASquidKeyOnlySummariesAnswer) {
  SummaryDirectory dir;
  EXPECT_FALSE(dir.probes_squid());
  ASSERT_FALSE(dir.set(0, summary_of(0, {4800, 4})));
  EXPECT_FALSE(dir.probes_squid());
  const SquidMask squid = squid_of(1, 188);
  ASSERT_FALSE(dir.set_squid(1, squid.mask));
  EXPECT_TRUE(dir.probes_squid());
  const SquidKey held = squid_key_of(1000);  // slot 1's first key
  EXPECT_EQ(dir.claims(Hasher{}(url_key(1000)), &held) & 2U, 2U);
  EXPECT_EQ(dir.claims(Hasher{}(url_key(1000)), nullptr) & 2U, 0U);
  EXPECT_EQ(dir.claims(Hasher{}(url_key(1000))) & 2U, 0U);
  EXPECT_EQ(dir.claims(Hasher{}(url_key(0)), &held) & 1U, 1U);
  dir.clear(1);
  EXPECT_FALSE(dir.probes_squid());
  EXPECT_EQ(dir.claims(Hasher{}(url_key(1000)), &held) & 2U, 0U);
}

TEST(SummaryDirectorySquid, EligibleMaskLimitsSquidSlotsToo) {
  SummaryDirectory dir;
  const SquidMask squid = squid_of(3, 188);
  ASSERT_FALSE(dir.set_squid(3, squid.mask));
  const SquidKey held = squid_key_of(3000);
  const Hash128 h = Hasher{}(url_key(3000));
  EXPECT_EQ(dir.claims(h, &held), 8U);
  EXPECT_EQ(dir.claims(h, &held, ~std::uint64_t{8}), 0U);
}

// Equal (m, k) under two schemes are two arrays: a Squid column is never
// probed at the hasher's positions.
TEST(SummaryDirectorySquid, SchemesNeverShareAnArray) {
  SummaryDirectory dir;
  ASSERT_FALSE(dir.set(0, summary_of(0, {1504, 4})));
  const std::size_t one = dir.memory_bytes();
  const SquidMask squid = squid_of(1, 188);  // 1504 bits, k = 4
  ASSERT_FALSE(dir.set_squid(1, squid.mask));
  EXPECT_EQ(dir.memory_bytes(), 2 * one);
  EXPECT_EQ(dir.params_of(1), (BloomParams{1504, 4}));
  EXPECT_EQ(dir.scheme_of(1), ProbeScheme::squid);
  EXPECT_EQ(dir.scheme_of(0), ProbeScheme::summary);
}

TEST(SummaryDirectorySquid, ASlotMovesBetweenSchemesWithOnlyItsNewBits) {
  SummaryDirectory dir;
  const SquidMask squid = squid_of(2, 188);
  ASSERT_FALSE(dir.set_squid(2, squid.mask));
  const SquidKey held = squid_key_of(2000);
  ASSERT_FALSE(dir.set(2, summary_of(9, {4800, 4})));  // now a summary of other keys
  EXPECT_EQ(dir.scheme_of(2), ProbeScheme::summary);
  EXPECT_FALSE(dir.probes_squid());
  EXPECT_EQ(dir.claims(Hasher{}(url_key(2000)), &held), 0U);
  EXPECT_EQ(dir.claims(Hasher{}(url_key(9000)), &held), 4U);
  ASSERT_FALSE(dir.set_squid(2, squid.mask));                 // and back
  EXPECT_EQ(dir.claims(Hasher{}(url_key(9000)), &held), 4U);  // held's own bits
  EXPECT_EQ(dir.scheme_of(2), ProbeScheme::squid);
}

TEST(SummaryDirectorySquid, EmptyOrOversizedMasksAreRefusedAndChangeNothing) {
  SummaryDirectory dir(Hasher{}, 1024);
  const SquidMask squid = squid_of(0, 128);  // 1024 bits: at the cap
  ASSERT_FALSE(dir.set_squid(0, squid.mask));
  EXPECT_EQ(dir.set_squid(0, std::vector<std::uint8_t>(129, 0xff)), FilterErrc::too_large);
  EXPECT_EQ(dir.set_squid(0, {}), FilterErrc::too_large);
  EXPECT_EQ(dir.set_squid(64, squid.mask), FilterErrc::invalid_slot);
  const SquidKey held = squid_key_of(0);
  EXPECT_EQ(dir.claims(Hasher{}(url_key(0)), &held), 1U);
  EXPECT_EQ(dir.params_of(0), (BloomParams{1024, 4}));
}

}  // namespace
}  // namespace sumcache::filters
