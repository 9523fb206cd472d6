#include "tools/sumcachectl/bloom_calc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "filters/bloom_filter.h"
#include "filters/counting_bloom_filter.h"
#include "protocol/encode.h"
#include "protocol/wire_header.h"
#include "protocol/wire_sizing.h"
#include "tests/support/url_keys.h"

namespace sumcache::tools {
namespace {

// Summary Cache's rate: 16 bits per entry with k = 4.
constexpr double kPaperFpr = 0.0024;

TEST(BloomCalc, FprTargetGivesTheFiltersLibrarysOptimalParameters) {
  auto c = bloom_calc({.entries = 1'000'000, .fpr = 0.01, .bits_per_entry = 0, .hashes = 0});
  ASSERT_TRUE(c);
  const auto expected = *filters::optimal_params(1'000'000, 0.01);
  EXPECT_EQ(c->memory.params, expected);
  EXPECT_EQ(c->memory.params.k, 7U);
  EXPECT_DOUBLE_EQ(c->memory.expected_fpr, filters::expected_fpr(expected, 1'000'000));
  EXPECT_NEAR(c->memory.expected_fpr, 0.01, 0.0005);
}

TEST(BloomCalc, FprTargetAlsoGivesTheWireObjectivesParameters) {
  for (double p : {0.05, 0.01, kPaperFpr, 1e-4}) {
    auto c = bloom_calc({.entries = 100'000, .fpr = p, .bits_per_entry = 0, .hashes = 0});
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->wire.has_value()) << p;
    EXPECT_EQ(c->wire->params, protocol::wire_optimal(100'000, p)->params) << p;
    EXPECT_LE(c->wire->expected_fpr, p) << p;
  }
}

TEST(BloomCalc, WireOptimalTradesMemoryForFewerBytesOnTheWire) {
  // docs/protocol.md, "Sizing a transmitted summary": at 0.24%, k = 1 and about 417 bits per
  // entry give about 10.2 bits per entry on the wire.
  auto c = bloom_calc({.entries = 1'000'000, .fpr = kPaperFpr, .bits_per_entry = 0, .hashes = 0});
  ASSERT_TRUE(c && c->wire);
  EXPECT_EQ(c->wire->params.k, 1U);
  EXPECT_NEAR(c->wire->wire_bits_per_entry, 10.2, 0.1);
  EXPECT_LT(c->wire->wire_bytes, c->memory.wire_bytes * 0.85);
  EXPECT_GT(c->wire->counting_bytes, c->memory.counting_bytes * 20);
}

TEST(BloomCalc, TheDaemonsDefaultFilterIs160KiBOfBits) {
  // docs/configuration.md: n = 81920 at 16 bits per entry, k = 4, a 160 KiB bit view.
  auto c = bloom_calc({.entries = 81920, .fpr = 0, .bits_per_entry = 16, .hashes = 4});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->memory.params, (filters::BloomParams{1310720, 4}));
  EXPECT_EQ(c->memory.plain_bytes, 160U * 1024);
  EXPECT_EQ(c->memory.counting_bytes, 640U * 1024);
  EXPECT_NEAR(c->memory.expected_fpr, 0.0024, 0.0001);  // the config reference's "about 0.24%"
  EXPECT_FALSE(c->wire.has_value());                    // no target FPR to meet
}

TEST(BloomCalc, ByteCountsMatchTheFiltersThemselves) {
  for (std::uint64_t n : {1ULL, 7ULL, 1000ULL, 12345ULL}) {
    auto c = bloom_calc({.entries = n, .fpr = 0.003, .bits_per_entry = 0, .hashes = 0});
    ASSERT_TRUE(c && c->wire);
    for (const FilterFigures* f : {&c->memory, &*c->wire}) {
      auto plain = filters::BloomFilter::create(f->params);
      auto counting = filters::CountingBloomFilter::create(f->params);
      ASSERT_TRUE(plain && counting);
      EXPECT_EQ(f->plain_bytes, plain->memory_bytes()) << n;
      EXPECT_EQ(f->counting_bytes, counting->memory_bytes()) << n;
    }
  }
}

TEST(BloomCalc, HashesOverrideTheOptimalK) {
  auto c = bloom_calc({.entries = 1000, .fpr = 0.01, .bits_per_entry = 0, .hashes = 2});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->memory.params.k, 2U);
  EXPECT_EQ(c->memory.params.m, filters::optimal_params(1000, 0.01)->m);
}

TEST(BloomCalc, AFilterOverTheLibrarysCapIsRefused) {
  auto c = bloom_calc({.entries = 1ULL << 40, .fpr = 1e-9, .bits_per_entry = 0, .hashes = 0});
  EXPECT_FALSE(c);
}

TEST(BloomCalc, WireFiguresAreTheProtocolLibrarysEstimateInWholeBytes) {
  const filters::BloomParams params{1310720, 4};
  const auto f = filter_figures(81920, params);
  const auto e = protocol::estimate_wire(81920, params);
  EXPECT_DOUBLE_EQ(f.wire_bits_per_entry, e.wire_bits_per_entry);
  EXPECT_EQ(f.wire_bytes,
            static_cast<std::uint64_t>(std::ceil(e.wire_bits_per_entry * 81920 / 8 - 1e-6)));
  // At the optimal k the array is half ones and goes raw: exactly ceil(m / 8) bytes.
  const auto half_full = *filters::optimal_params(100'001, 0.01);
  EXPECT_EQ(filter_figures(100'001, half_full).wire_bytes, (half_full.m + 7) / 8);
}

// The payload of a real full summary of a filter holding n keys.
std::uint64_t encoded_payload_bytes(filters::BloomParams params, std::uint64_t n) {
  auto bits = filters::BloomFilter::create(params);
  EXPECT_TRUE(bits);
  for (const auto& key : sumcache::testing::url_keys(0, n)) bits->add(key);
  protocol::SummaryInfo info;
  info.node_id = "node-a";
  info.epoch = 1;
  info.sequence = 1;
  info.params = params;
  info.hasher = bits->hasher();
  info.entries = n;
  const std::string wire = protocol::encode_full(info, *bits, "secret").value();
  EXPECT_FALSE(wire.empty());
  return wire.size() - protocol::kHeaderBytes - info.node_id.size() - protocol::kTagBytes;
}

TEST(BloomCalc, WireBytesAreWithinTwoPercentOfARealEncodedSummary) {
  constexpr std::uint64_t n = 20'000;
  auto c = bloom_calc({.entries = n, .fpr = kPaperFpr, .bits_per_entry = 0, .hashes = 0});
  ASSERT_TRUE(c && c->wire);
  auto paper = bloom_calc({.entries = n, .fpr = 0, .bits_per_entry = 16, .hashes = 4});
  ASSERT_TRUE(paper);
  for (const FilterFigures* f : {&c->memory, &*c->wire, &paper->memory}) {
    const auto actual = static_cast<double>(encoded_payload_bytes(f->params, n));
    EXPECT_NEAR(static_cast<double>(f->wire_bytes), actual, actual * 0.02)
        << "m=" << f->params.m << " k=" << f->params.k;
  }
}

TEST(BloomCalc, OutputShowsBothObjectivesForAnFprTarget) {
  auto c = bloom_calc({.entries = 81920, .fpr = kPaperFpr, .bits_per_entry = 0, .hashes = 0});
  ASSERT_TRUE(c && c->wire);
  const std::string text = format_bloom_calc(*c);
  const auto wire_at = text.find("filter.objective \"wire\"");
  ASSERT_NE(wire_at, std::string::npos) << text;
  EXPECT_LT(text.find("filter.objective \"memory\""), wire_at) << text;
  const std::string wire_block = text.substr(wire_at);
  for (const std::string& needle : std::vector<std::string>{
           "bits (m)                    " + std::to_string(c->wire->params.m),
           "hashes (k)                  1", std::to_string(c->wire->counting_bytes) + " bytes",
           std::to_string(c->wire->wire_bytes) + " bytes", "x the bytes on the wire"}) {
    EXPECT_NE(wire_block.find(needle), std::string::npos) << needle << "\n" << text;
  }
}

TEST(BloomCalc, OutputForALoadNamesEveryFigureInOneBlock) {
  auto c = bloom_calc({.entries = 81920, .fpr = 0, .bits_per_entry = 16, .hashes = 4});
  ASSERT_TRUE(c);
  const std::string text = format_bloom_calc(*c);
  for (const std::string& needle : std::vector<std::string>{
           "filter.bits_per_entry 16, filter.hashes 4", "bits (m)                    1310720",
           "hashes (k)                  4", "163840 bytes", "655360 bytes",
           "full summary on the wire", std::to_string(c->memory.wire_bytes) + " bytes"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  }
  EXPECT_EQ(text.find("wire-optimal"), std::string::npos) << text;
}

}  // namespace
}  // namespace sumcache::tools
