#include <gtest/gtest.h>

#include <vector>

#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/protocol_error.h"
#include "tests/protocol/protocol_test_util.h"

namespace sumcache::protocol {
namespace {

using testing::info_for;
using testing::kSecret;
using testing::random_bits;
using testing::secret_for_known_nodes;

TEST(RoundTrip, FullSummaryOfAnyShapeDecodesToTheSameBitsAndInfo) {
  std::uint64_t seed = 1;
  for (std::uint64_t m : {1ULL, 7ULL, 63ULL, 64ULL, 65ULL, 1000ULL, 4097ULL, 20000ULL}) {
    for (std::uint32_t k : {1U, 4U, 32U}) {
      for (double fill : {0.0, 0.001, 0.05, 0.3, 0.5, 0.7, 0.95, 0.999, 1.0}) {
        const auto bits = random_bits(m, k, fill, seed++);
        auto info = info_for(bits, seed);
        info.entries = seed * 3;
        const std::string wire = encode_full(info, bits, kSecret).value();
        ASSERT_FALSE(wire.empty());
        auto back = decode(wire, secret_for_known_nodes());
        ASSERT_TRUE(back.ok()) << back.error().message() << " m=" << m << " fill=" << fill;
        EXPECT_EQ(back->kind, MessageKind::full);
        ASSERT_TRUE(back->bits.has_value());
        EXPECT_EQ(*back->bits, bits) << "m=" << m << " fill=" << fill;
        EXPECT_EQ(back->info.node_id, info.node_id);
        EXPECT_EQ(back->info.epoch, info.epoch);
        EXPECT_EQ(back->info.sequence, info.sequence);
        EXPECT_EQ(back->info.params, info.params);
        EXPECT_EQ(back->info.hasher, info.hasher);
        EXPECT_EQ(back->info.entries, info.entries);
        EXPECT_EQ(back->wire_bytes, wire.size());
        EXPECT_EQ(back->version, kBloomVersion);
        EXPECT_EQ(back->min_version, kMinVersion);
      }
    }
  }
}

TEST(RoundTrip, FullSummaryKeepsSeededAndMd5Hashers) {
  auto seeded = filters::BloomFilter::create(
      {5000, 3}, *filters::Hasher::create(filters::HashId::xxh3_128, 99));
  auto md5 =
      filters::BloomFilter::create({5000, 3}, *filters::Hasher::create(filters::HashId::md5));
  for (int i = 0; i < 100; ++i) {
    seeded->add("k" + std::to_string(i));
    md5->add("k" + std::to_string(i));
  }
  for (const auto* bits : {&*seeded, &*md5}) {
    auto back =
        decode(encode_full(info_for(*bits), *bits, kSecret).value(), secret_for_known_nodes());
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_EQ(*back->bits, *bits);
    EXPECT_TRUE(back->bits->contains("k7"));
  }
}

TEST(RoundTrip, FullSummaryIsTheSmallerOfRawAndCoded) {
  const std::uint64_t m = 64'000;
  const std::size_t raw_payload = m / 8;
  for (double fill : {0.0, 0.01, 0.2, 0.8, 0.99, 1.0}) {
    const auto bits = random_bits(m, 2, fill, 5);
    auto back =
        decode(encode_full(info_for(bits), bits, kSecret).value(), secret_for_known_nodes());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->compression, Compression::rice_gaps) << fill;
    EXPECT_LT(back->wire_bytes, raw_payload) << fill;
  }
  const auto half = random_bits(m, 2, 0.5, 6);
  auto back = decode(encode_full(info_for(half), half, kSecret).value(), secret_for_known_nodes());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->compression, Compression::raw);
  EXPECT_EQ(back->wire_bytes, kHeaderBytes + 6 + raw_payload + kTagBytes);
}

TEST(RoundTrip, SparseCodedSummaryCostsAboutTheEntropyOfItsBits) {
  // 1% fill: H(0.01) = 0.0808 bits per bit; Rice stays within 4% of it.
  const std::uint64_t m = 400'000;
  const auto bits = random_bits(m, 1, 0.01, 9);
  const std::string wire = encode_full(info_for(bits), bits, kSecret).value();
  const double payload_bits = 8.0 * static_cast<double>(wire.size() - kHeaderBytes - 6 - kTagBytes);
  EXPECT_LT(payload_bits, 1.04 * 0.0808 * static_cast<double>(m));
}

TEST(RoundTrip, DeltaOfAnyShapeDecodesToTheSameChanges) {
  std::mt19937_64 rng(21);
  for (std::uint64_t m : {1ULL, 65ULL, 4097ULL, 1'000'000ULL}) {
    for (std::size_t count : {0UL, 1UL, 10UL, 500UL}) {
      std::vector<filters::BitChange> changes;
      for (std::uint64_t i = 0; i < m && changes.size() < count; ++i) {
        if (rng() % std::max<std::uint64_t>(1, m / (count + 1)) == 0)
          changes.push_back({i, rng() % 2 == 1});
      }
      const auto bits = random_bits(m, 2, 0, 1);
      const auto info = info_for(bits, 12);
      const std::string wire = encode_delta(info, 9, changes, kSecret).value();
      ASSERT_FALSE(wire.empty());
      auto back = decode(wire, secret_for_known_nodes());
      ASSERT_TRUE(back.ok()) << back.error().message();
      EXPECT_EQ(back->kind, MessageKind::delta);
      EXPECT_EQ(back->compression, Compression::rice_gaps);
      EXPECT_EQ(back->base_sequence, 9U);
      EXPECT_EQ(back->info.sequence, 12U);
      EXPECT_EQ(back->changes, changes);
      EXPECT_FALSE(back->bits.has_value());
    }
  }
}

TEST(RoundTrip, EncoderRefusesInputThatBreaksItsPreconditions) {
  const auto bits = random_bits(1000, 2, 0.1, 1);
  auto info = info_for(bits, 5);
  EXPECT_TRUE(encode_full(info, bits, kSecret).ok());
  EXPECT_FALSE(check_summary(info));

  auto bad_node = info;
  bad_node.node_id = "node a";
  EXPECT_EQ(check_summary(bad_node), ProtocolErrc::invalid_summary);
  EXPECT_EQ(encode_full(bad_node, bits, kSecret).error(), ProtocolErrc::invalid_summary);
  bad_node.node_id = std::string(65, 'a');
  EXPECT_EQ(encode_full(bad_node, bits, kSecret).error(), ProtocolErrc::invalid_summary);
  bad_node.node_id = "";
  EXPECT_EQ(encode_full(bad_node, bits, kSecret).error(), ProtocolErrc::invalid_summary);

  auto other_params = info;
  other_params.params.k = 3;
  EXPECT_EQ(encode_full(other_params, bits, kSecret).error(), ProtocolErrc::invalid_summary);

  const std::vector<filters::BitChange> descending{{5, true}, {3, false}};
  const std::vector<filters::BitChange> repeated{{5, true}, {5, false}};
  const std::vector<filters::BitChange> past_m{{1000, true}};
  const std::vector<filters::BitChange> fine{{0, true}, {999, false}};
  EXPECT_EQ(check_delta(info, 4, descending), ProtocolErrc::invalid_summary);
  EXPECT_EQ(encode_delta(info, 4, descending, kSecret).error(), ProtocolErrc::invalid_summary);
  EXPECT_EQ(encode_delta(info, 4, repeated, kSecret).error(), ProtocolErrc::invalid_summary);
  EXPECT_EQ(encode_delta(info, 4, past_m, kSecret).error(), ProtocolErrc::invalid_summary);
  EXPECT_EQ(encode_delta(info, 5, fine, kSecret).error(),
            ProtocolErrc::invalid_summary);  // base must be below sequence
  EXPECT_TRUE(encode_delta(info, 4, fine, kSecret).ok());
}

TEST(RoundTrip, EncoderErrorsNameTheirCause) {
  const auto bits = random_bits(1000, 2, 0.1, 1);
  auto bad = info_for(bits, 5);
  bad.node_id = "";
  const auto refused = encode_full(bad, bits, kSecret);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(), "summary to encode breaks a precondition");
  EXPECT_EQ(std::error_code(ProtocolErrc::signing_failed).message(),
            "summary could not be signed (HMAC-SHA256 failed)");
}

TEST(RoundTrip, EmptySecretStillSignsAndChecks) {
  const auto bits = random_bits(100, 1, 0.1, 2);
  const std::string wire = encode_full(info_for(bits), bits, "").value();
  auto empty_secret = [](std::string_view) -> std::optional<std::string> { return std::string(); };
  EXPECT_TRUE(decode(wire, empty_secret).ok());
  EXPECT_EQ(decode(wire, secret_for_known_nodes()).error(), ProtocolErrc::bad_tag);
}

}  // namespace
}  // namespace sumcache::protocol
