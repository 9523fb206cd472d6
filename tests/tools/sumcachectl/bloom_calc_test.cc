#include "tools/sumcachectl/bloom_calc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "filters/bloom_filter.h"
#include "filters/counting_bloom_filter.h"

namespace sumcache::tools {
namespace {

TEST(BloomCalc, FprTargetGivesTheFiltersLibrarysOptimalParameters) {
  auto c = bloom_calc({.entries = 1'000'000, .fpr = 0.01, .bits_per_entry = 0, .hashes = 0});
  ASSERT_TRUE(c);
  const auto expected = *filters::optimal_params(1'000'000, 0.01);
  EXPECT_EQ(c->params, expected);
  EXPECT_EQ(c->params.k, 7U);
  EXPECT_DOUBLE_EQ(c->expected_fpr, filters::expected_fpr(expected, 1'000'000));
  EXPECT_NEAR(c->expected_fpr, 0.01, 0.0005);
}

TEST(BloomCalc, TheDaemonsDefaultFilterIs160KiBOfBits) {
  // docs/configuration.md: n = 81920 at 16 bits per entry, k = 4, a 160 KiB bit view.
  auto c = bloom_calc({.entries = 81920, .fpr = 0, .bits_per_entry = 16, .hashes = 4});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->params, (filters::BloomParams{1310720, 4}));
  EXPECT_EQ(c->plain_bytes, 160U * 1024);
  EXPECT_EQ(c->counting_bytes, 640U * 1024);
  EXPECT_NEAR(c->expected_fpr, 0.0024, 0.0001);  // the config reference's "about 0.24%"
}

TEST(BloomCalc, ByteCountsMatchTheFiltersThemselves) {
  for (std::uint64_t n : {1ULL, 7ULL, 1000ULL, 12345ULL}) {
    auto c = bloom_calc({.entries = n, .fpr = 0.003, .bits_per_entry = 0, .hashes = 0});
    ASSERT_TRUE(c);
    auto plain = filters::BloomFilter::create(c->params);
    auto counting = filters::CountingBloomFilter::create(c->params);
    ASSERT_TRUE(plain && counting);
    EXPECT_EQ(c->plain_bytes, plain->memory_bytes()) << n;
    EXPECT_EQ(c->counting_bytes, counting->memory_bytes()) << n;
  }
}

TEST(BloomCalc, HashesOverrideTheOptimalK) {
  auto c = bloom_calc({.entries = 1000, .fpr = 0.01, .bits_per_entry = 0, .hashes = 2});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->params.k, 2U);
  EXPECT_EQ(c->params.m, filters::optimal_params(1000, 0.01)->m);
}

TEST(BloomCalc, AFilterOverTheLibrarysCapIsRefused) {
  auto c = bloom_calc({.entries = 1ULL << 40, .fpr = 1e-9, .bits_per_entry = 0, .hashes = 0});
  EXPECT_FALSE(c);
}

// The Rice code the estimate models, applied to a real filter's bit view.
std::uint64_t rice_bytes_of(const filters::BloomFilter& f, std::uint32_t r) {
  std::uint64_t bits = 0;
  std::uint64_t gap = 0;
  for (std::uint64_t i = 0; i < f.params().m; ++i) {
    if (!f.test_bit(i)) {
      ++gap;
      continue;
    }
    bits += (gap >> r) + 1 + r;
    gap = 0;
  }
  return (bits + 7) / 8;
}

TEST(WireEstimate, RiceEstimateIsWithinOnePercentOfEncodingARealFilter) {
  auto c = bloom_calc({.entries = 20000, .fpr = 0, .bits_per_entry = 16, .hashes = 4});
  ASSERT_TRUE(c);
  ASSERT_FALSE(c->wire.raw);
  auto f = filters::BloomFilter::create(c->params);
  ASSERT_TRUE(f);
  for (int i = 0; i < 20000; ++i) f->add("http://origin.example/object/" + std::to_string(i));
  EXPECT_NEAR(static_cast<double>(f->count_set_bits()), c->wire.set_bits, c->wire.set_bits * 0.01);
  const auto actual = static_cast<double>(rice_bytes_of(*f, c->wire.rice_bits));
  EXPECT_NEAR(static_cast<double>(c->wire.bytes), actual, actual * 0.01);
  // No other Rice parameter does better on the real bits than the one the estimate chose.
  for (std::uint32_t r : {c->wire.rice_bits - 1, c->wire.rice_bits + 1}) {
    EXPECT_GE(rice_bytes_of(*f, r), rice_bytes_of(*f, c->wire.rice_bits)) << r;
  }
}

TEST(WireEstimate, AHalfFullFilterGoesRawBecauseItDoesNotCompress) {
  // At the optimal k the fill is 1/2: one bit of entropy per bit, nothing to gain.
  const auto e = estimate_summary_wire(*filters::optimal_params(100000, 0.01), 100000);
  EXPECT_TRUE(e.raw);
  EXPECT_EQ(e.bytes, (filters::optimal_params(100000, 0.01)->m + 7) / 8);
}

TEST(WireEstimate, WireOptimalFitsTheSameBytesWithALowerFpr) {
  const filters::BloomParams reference{1310720, 4};
  const auto best = wire_optimal(reference, 81920);
  EXPECT_LT(best.k, reference.k);
  EXPECT_GT(best.m, reference.m);
  EXPECT_LE(best.m, reference.m * kMaxWireOptimalGrowth);
  EXPECT_LE(estimate_summary_wire(best, 81920).bytes,
            estimate_summary_wire(reference, 81920).bytes);
  EXPECT_LT(filters::expected_fpr(best, 81920), filters::expected_fpr(reference, 81920) / 2);
}

TEST(BloomCalc, OutputNamesEveryFigure) {
  auto c = bloom_calc({.entries = 81920, .fpr = 0, .bits_per_entry = 16, .hashes = 4});
  ASSERT_TRUE(c);
  const std::string text = format_bloom_calc(*c);
  for (const char* needle :
       {"bits (m)                    1310720", "hashes (k)                  4", "163840 bytes",
        "655360 bytes", "summary on the wire", "compressed-optimal"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  }
}

}  // namespace
}  // namespace sumcache::tools
