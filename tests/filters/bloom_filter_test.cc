#include "filters/bloom_filter.h"

#include <gtest/gtest.h>

#include "filters/filter_error.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

using sumcache::testing::url_key;

BloomFilter make(std::uint64_t m = 10'000, std::uint32_t k = 4, Hasher hasher = {}) {
  auto f = BloomFilter::create({m, k}, hasher);
  EXPECT_TRUE(f.ok());
  return std::move(f).value();
}

TEST(BloomFilter, TestKeysAreSixtyByteUrls) {
  EXPECT_EQ(url_key(0).size(), sumcache::testing::kUrlKeyBytes);
  EXPECT_EQ(url_key(999'999'999'999ULL).size(), sumcache::testing::kUrlKeyBytes);
  EXPECT_NE(url_key(1), url_key(2));
}

TEST(BloomFilter, AddedKeysAreAlwaysContained) {
  BloomFilter f = make(50'000, 5);
  for (int i = 0; i < 5000; ++i) f.add(url_key(i));
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(f.contains(url_key(i))) << i;
}

TEST(BloomFilter, EmptyFilterContainsNothing) {
  BloomFilter f = make();
  EXPECT_FALSE(f.contains("http://a/"));
  EXPECT_EQ(f.count_set_bits(), 0U);
}

TEST(BloomFilter, AddChangedReportsFirstInsertOnly) {
  BloomFilter f = make(1 << 20, 7);
  EXPECT_TRUE(f.add_changed("http://a/"));
  EXPECT_FALSE(f.add_changed("http://a/"));
  EXPECT_TRUE(f.add_changed("http://b/"));
}

TEST(BloomFilter, HashedAndKeyedCallsAgree) {
  BloomFilter f = make();
  f.add(Hasher{}("http://a/"));
  EXPECT_TRUE(f.contains("http://a/"));
}

TEST(BloomFilter, SetBitsCountAndBitAccess) {
  BloomFilter f = make(130, 3);
  f.set_bit(0, true);
  f.set_bit(64, true);
  f.set_bit(129, true);
  EXPECT_TRUE(f.test_bit(129));
  EXPECT_EQ(f.count_set_bits(), 3U);
  f.set_bit(64, false);
  EXPECT_FALSE(f.test_bit(64));
  EXPECT_EQ(f.count_set_bits(), 2U);
  f.clear();
  EXPECT_EQ(f.count_set_bits(), 0U);
}

TEST(BloomFilter, UnionContainsBothSetsAndIntersectionKeepsCommonBits) {
  BloomFilter a = make(), b = make();
  a.add("http://a/");
  b.add("http://b/");
  BloomFilter both = a;
  ASSERT_FALSE(both.union_with(b));
  EXPECT_TRUE(both.contains("http://a/"));
  EXPECT_TRUE(both.contains("http://b/"));
  ASSERT_FALSE(both.intersect_with(a));
  EXPECT_EQ(both, a);
}

TEST(BloomFilter, CombiningMismatchedFiltersIsAnError) {
  BloomFilter a = make(10'000, 4);
  BloomFilter before = a;
  EXPECT_EQ(a.union_with(make(10'001, 4)), FilterErrc::parameter_mismatch);
  EXPECT_EQ(a.intersect_with(make(10'000, 5)), FilterErrc::parameter_mismatch);
  EXPECT_EQ(a.union_with(make(10'000, 4, *Hasher::create(HashId::md5))),
            FilterErrc::parameter_mismatch);
  EXPECT_EQ(a.union_with(make(10'000, 4, *Hasher::create(HashId::xxh3_128, 3))),
            FilterErrc::parameter_mismatch);
  EXPECT_EQ(a, before);
}

TEST(BloomFilter, EqualityComparesParamsHasherAndBits) {
  BloomFilter a = make(), b = make();
  EXPECT_EQ(a, b);
  a.add("x");
  EXPECT_NE(a, b);
  b.add("x");
  EXPECT_EQ(a, b);
  EXPECT_NE(make(10'000, 4), make(10'000, 3));
}

TEST(BloomFilter, BitDifferencesListEachChangedBitWithItsNewValueInOrder) {
  auto from = *BloomFilter::create({200, 3});
  auto to = *BloomFilter::create({200, 3});
  from.set_bit(3, true);    // cleared in `to`
  from.set_bit(70, true);   // unchanged
  to.set_bit(70, true);
  to.set_bit(64, true);     // set, across a word boundary
  to.set_bit(199, true);    // the last bit
  const std::vector<BitChange> expected{{3, false}, {64, true}, {199, true}};
  EXPECT_EQ(bit_differences(from, to), expected);
  EXPECT_TRUE(bit_differences(to, to).empty());
}

TEST(BloomFilter, InvalidParametersAreRejected) {
  EXPECT_EQ(BloomFilter::create({0, 4}).error(), FilterErrc::invalid_bits);
  EXPECT_EQ(BloomFilter::create({10, 0}).error(), FilterErrc::invalid_hashes);
  EXPECT_EQ(BloomFilter::for_capacity(0, 0.01).error(), FilterErrc::invalid_entries);
  EXPECT_EQ(BloomFilter::for_capacity(10, 2.0).error(), FilterErrc::invalid_fpr);
}

TEST(BloomFilter, EstimatesTrackTheInsertedCount) {
  auto f = BloomFilter::for_capacity(100'000, 0.01);
  ASSERT_TRUE(f.ok());
  for (int i = 0; i < 50'000; ++i) f->add(url_key(i));
  EXPECT_NEAR(f->estimated_cardinality(), 50'000, 500);
  EXPECT_LT(f->estimated_fpr(), 0.01);
  EXPECT_GT(f->estimated_fpr(), 0.0001);
}

TEST(BloomFilter, Md5FilterWorks) {
  BloomFilter f = make(10'000, 4, *Hasher::create(HashId::md5));
  f.add("http://a/");
  EXPECT_TRUE(f.contains("http://a/"));
  EXPECT_TRUE(f.contains(md5_128("http://a/")));
}

}  // namespace
}  // namespace sumcache::filters
