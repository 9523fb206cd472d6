#include "filters/blocked_bloom_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter_error.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

using sumcache::testing::url_key;
using sumcache::testing::url_keys;

BlockedBloomFilter make(std::uint64_t num_blocks, BlockKernel kernel = best_block_kernel(),
                        Hasher hasher = {}) {
  auto f = BlockedBloomFilter::create(num_blocks, hasher, kernel);
  EXPECT_TRUE(f.ok()) << f.error().message();
  return std::move(f).value();
}

std::vector<std::string_view> views_of(const std::vector<std::string>& keys) {
  return {keys.begin(), keys.end()};
}

// Batch outputs live in a bool array: std::vector<bool> has no contiguous bools.
struct BoolArray {
  explicit BoolArray(std::size_t n) : size(n), data(std::make_unique<bool[]>(n)) {}
  std::span<bool> span() { return {data.get(), size}; }
  std::size_t size;
  std::unique_ptr<bool[]> data;
};

// --- One typed test holds every kernel to the scalar reference, bit for bit.

struct ScalarKernel {
  static constexpr BlockKernel kKernel = BlockKernel::scalar;
};
struct Avx2Kernel {
  static constexpr BlockKernel kKernel = BlockKernel::avx2;
};

template <class T>
class BlockKernelAgreement : public ::testing::Test {};
using Kernels = ::testing::Types<ScalarKernel, Avx2Kernel>;
TYPED_TEST_SUITE(BlockKernelAgreement, Kernels);

TYPED_TEST(BlockKernelAgreement, SameBitsAndAnswersAsTheScalarReference) {
  constexpr BlockKernel kKernel = TypeParam::kKernel;
  if (!block_kernel_supported(kKernel)) {
    GTEST_SKIP() << "this CPU lacks AVX2: the avx2 kernel was NOT tested";
  }
  // A single key sets exactly bit (h2 >> 5w) & 31 of word w of block reduce(h1, blocks).
  BlockedBloomFilter single = make(1000, kKernel);
  const Hash128 h = Hasher{}("http://a/");
  single.add(h);
  const SplitBlock& block = single.blocks()[reduce(h.h1, 1000)];
  for (unsigned w = 0; w < kBlockWords; ++w) {
    EXPECT_EQ(block.words[w], std::uint32_t{1} << ((h.h2 >> (5 * w)) & 31)) << "word " << w;
  }
  EXPECT_EQ(single.count_set_bits(), kBlockWords);

  // Many keys, loaded to 8 bits per key so that absent keys give both answers.
  constexpr std::uint64_t kAdded = 4000;
  constexpr std::uint64_t kBlocks = kAdded * 8 / kBlockBits;
  BlockedBloomFilter reference = make(kBlocks, BlockKernel::scalar);
  BlockedBloomFilter filter = make(kBlocks, kKernel);
  ASSERT_EQ(filter.kernel(), kKernel);
  for (std::uint64_t i = 0; i < kAdded; ++i) {
    reference.add(url_key(i));
    filter.add(url_key(i));
  }
  ASSERT_TRUE(std::ranges::equal(filter.blocks(), reference.blocks()));

  const std::vector<std::string> probes = url_keys(0, 3 * kAdded);  // a third present
  BoolArray batch(probes.size());
  ASSERT_FALSE(filter.contains_batch(views_of(probes), batch.span()));
  std::uint64_t positives = 0;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const bool expected = reference.contains(probes[i]);
    ASSERT_EQ(filter.contains(probes[i]), expected) << probes[i];
    ASSERT_EQ(batch.data[i], expected) << probes[i];
    positives += expected ? 1 : 0;
  }
  // All kAdded present keys and a few percent of the absent ones.
  EXPECT_GT(positives, kAdded);
  EXPECT_LT(positives, 2 * kAdded);
}

// --- The filter.

TEST(BlockedBloomFilter, AddedKeysAreAlwaysContained) {
  BlockedBloomFilter f = make(200);  // 51,200 bits for 5,000 keys
  for (int i = 0; i < 5000; ++i) f.add(url_key(i));
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(f.contains(url_key(i))) << i;
}

TEST(BlockedBloomFilter, EmptyFilterContainsNothing) {
  BlockedBloomFilter f = make(10);
  EXPECT_FALSE(f.contains("http://a/"));
  EXPECT_EQ(f.count_set_bits(), 0U);
}

TEST(BlockedBloomFilter, HashedAndKeyedCallsAgree) {
  BlockedBloomFilter f = make(10);
  f.add(Hasher{}("http://a/"));
  EXPECT_TRUE(f.contains("http://a/"));
  f.add("http://b/");
  EXPECT_TRUE(f.contains(Hasher{}("http://b/")));
}

TEST(BlockedBloomFilter, BatchAnswersEqualSingleContainsForMixedKeys) {
  BlockedBloomFilter f = make(64);
  for (int i = 0; i < 3000; i += 2) f.add(url_key(i));  // even keys present
  // Lengths around the prefetch distance and the keyed batch's chunk.
  for (std::size_t length : {std::size_t{0}, std::size_t{1}, kPrefetchDistance - 1,
                             kPrefetchDistance, kPrefetchDistance + 1, std::size_t{3000}}) {
    const std::vector<std::string> keys = url_keys(0, length);
    std::vector<Hash128> hashes;
    hashes.reserve(length);
    for (const auto& key : keys) hashes.push_back(Hasher{}(key));
    BoolArray by_hash(length), by_key(length);
    ASSERT_FALSE(f.contains_batch(hashes, by_hash.span()));
    ASSERT_FALSE(f.contains_batch(views_of(keys), by_key.span()));
    for (std::size_t i = 0; i < length; ++i) {
      ASSERT_EQ(by_hash.data[i], f.contains(hashes[i])) << "length " << length << " key " << i;
      ASSERT_EQ(by_key.data[i], by_hash.data[i]) << "length " << length << " key " << i;
      if (i % 2 == 0) {
        ASSERT_TRUE(by_hash.data[i]) << "added key " << i;
      }
    }
  }
}

TEST(BlockedBloomFilter, BatchWithWrongOutputLengthIsAnErrorAndWritesNothing) {
  BlockedBloomFilter f = make(4);
  f.add("http://a/");
  const std::vector<Hash128> hashes(3, Hasher{}("http://a/"));
  const std::vector<std::string_view> keys(3, "http://a/");
  BoolArray shorter(2), longer(4);
  EXPECT_EQ(f.contains_batch(hashes, shorter.span()), FilterErrc::size_mismatch);
  EXPECT_EQ(f.contains_batch(hashes, longer.span()), FilterErrc::size_mismatch);
  EXPECT_EQ(f.contains_batch(keys, shorter.span()), FilterErrc::size_mismatch);
  EXPECT_FALSE(shorter.data[0] || shorter.data[1]);
  EXPECT_FALSE(std::ranges::any_of(longer.span(), [](bool b) { return b; }));
}

TEST(BlockedBloomFilter, BlocksAreAlignedAndSizesAgree) {
  BlockedBloomFilter f = make(1001);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(f.blocks().data()) % 32, 0U);
  EXPECT_EQ(f.num_blocks(), 1001U);
  EXPECT_EQ(f.num_bits(), 1001U * 256);
  EXPECT_EQ(f.memory_bytes(), 1001U * 32);
}

TEST(BlockedBloomFilter, EqualityComparesHasherAndBitsNotKernel) {
  BlockedBloomFilter a = make(16, BlockKernel::scalar), b = make(16, best_block_kernel());
  EXPECT_EQ(a, b);
  a.add("x");
  EXPECT_NE(a, b);
  b.add("x");
  EXPECT_EQ(a, b);
  EXPECT_NE(make(16), make(17));
  EXPECT_NE(make(16), make(16, best_block_kernel(), *Hasher::create(HashId::xxh3_128, 7)));
}

TEST(BlockedBloomFilter, Md5FilterWorks) {
  BlockedBloomFilter f = make(16, best_block_kernel(), *Hasher::create(HashId::md5));
  f.add("http://a/");
  EXPECT_TRUE(f.contains("http://a/"));
  EXPECT_TRUE(f.contains(md5_128("http://a/")));
}

TEST(BlockedBloomFilter, InvalidSizesAndTargetsAreErrorsNotClamps) {
  EXPECT_EQ(BlockedBloomFilter::create(0).error(), FilterErrc::invalid_bits);
  EXPECT_EQ(BlockedBloomFilter::create(BlockedBloomFilter::kMaxBlocks + 1).error(),
            FilterErrc::invalid_bits);
  EXPECT_EQ(BlockedBloomFilter::create(~0ULL).error(), FilterErrc::invalid_bits);
  EXPECT_EQ(BlockedBloomFilter::for_capacity(0, 0.01).error(), FilterErrc::invalid_entries);
  for (double p : {0.0, 1.0, -0.5, 2.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(BlockedBloomFilter::for_capacity(10, p).error(), FilterErrc::invalid_fpr) << p;
  }
  EXPECT_EQ(BlockedBloomFilter::for_capacity(~0ULL, 0.01).error(), FilterErrc::size_overflow);
  EXPECT_EQ(BlockedBloomFilter::for_capacity(1, 1e-300).error(), FilterErrc::size_overflow);
}

TEST(BlockedBloomFilter, UnsupportedKernelIsAnError) {
  if (block_kernel_supported(BlockKernel::avx2)) GTEST_SKIP() << "this CPU has AVX2";
  EXPECT_EQ(BlockedBloomFilter::create(1, {}, BlockKernel::avx2).error(),
            FilterErrc::unsupported_kernel);
}

// --- Sizing and the formula.

TEST(BlockedBloomFilter, ForCapacityChoosesTheFewestBlocksMeetingTheTarget) {
  for (std::uint64_t n : {1ULL, 1000ULL, 123'457ULL, 10'000'000ULL}) {
    for (double p : {0.5, 0.05, 0.01, 0.001, 1e-6}) {
      auto f = BlockedBloomFilter::for_capacity(n, p);
      ASSERT_TRUE(f.ok()) << n << " " << p;
      EXPECT_LE(BlockedBloomFilter::expected_fpr(f->num_blocks(), n), p) << n << " " << p;
      if (f->num_blocks() > 1) {
        EXPECT_GT(BlockedBloomFilter::expected_fpr(f->num_blocks() - 1, n), p) << n << " " << p;
      }
    }
  }
}

TEST(BlockedBloomFilter, ForCapacityNeedsMoreBitsPerKeyThanAPlainFilter) {
  // 1%: a plain filter needs 9.59 bits per key; this one about 10.5 (docs/filters_blocked.md).
  auto f = BlockedBloomFilter::for_capacity(1'000'000, 0.01);
  ASSERT_TRUE(f.ok());
  const double bits_per_key = static_cast<double>(f->num_bits()) / 1e6;
  EXPECT_GT(bits_per_key, 9.59);
  EXPECT_LT(bits_per_key, 11.0);
}

// The sum from i = 0, term by term; e^-lambda underflows past lambda = 745.
double direct_sum(double lambda) {
  double term = std::exp(-lambda), sum = 0;
  for (int i = 0; i < 2000; ++i) {
    if (i > 0) term *= lambda / i;
    sum += term * std::pow(1 - std::pow(31.0 / 32, i), 8);
  }
  return sum;
}

TEST(BlockedBloomFilter, ExpectedFprIsThePoissonMixtureOfBlockRates) {
  for (std::uint64_t n : {1ULL, 100ULL, 1000ULL, 5000ULL, 25'600ULL, 100'000ULL, 500'000ULL}) {
    const double lambda = static_cast<double>(n) / 1000;
    EXPECT_NEAR(BlockedBloomFilter::expected_fpr(1000, n) / direct_sum(lambda), 1.0, 1e-9) << n;
  }
  // One key in a million blocks: a probe almost always meets an empty block
  // (rate 0) or one holding one key, whose 8 bits it matches with chance 32^-8.
  EXPECT_NEAR(BlockedBloomFilter::expected_fpr(1'000'000, 1) / (1e-6 * std::pow(32.0, -8)), 1.0,
              1e-3);
  EXPECT_EQ(BlockedBloomFilter::expected_fpr(10, 0), 0.0);
  EXPECT_EQ(BlockedBloomFilter::expected_fpr(1, ~0ULL), 1.0);
  EXPECT_EQ(BlockedBloomFilter::expected_fpr(0, 10), 1.0);
}

TEST(BlockedBloomFilter, ExpectedFprIsAbovePlainBloomAtEqualBitsPerKey) {
  constexpr std::uint64_t kKeys = 1'000'000;
  for (int bits_per_key = 4; bits_per_key <= 32; ++bits_per_key) {
    const std::uint64_t blocks = kKeys * bits_per_key / kBlockBits;
    const double blocked = BlockedBloomFilter::expected_fpr(blocks, kKeys);
    auto plain = params_for_load(kKeys, static_cast<double>(blocks * kBlockBits) / kKeys);
    ASSERT_TRUE(plain.ok());
    EXPECT_GT(blocked, expected_fpr(*plain, kKeys)) << bits_per_key;
    EXPECT_GT(blocked, expected_fpr({blocks * kBlockBits, 8}, kKeys)) << bits_per_key;
    EXPECT_LT(BlockedBloomFilter::expected_fpr(blocks + 1, kKeys), blocked) << bits_per_key;
  }
}

}  // namespace
}  // namespace sumcache::filters
