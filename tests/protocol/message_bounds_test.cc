// The size bounds a receiver refuses larger messages by: every message the
// real encoder writes fits them, at the densities where each is tightest.

#include "protocol/message_bounds.h"

#include <gtest/gtest.h>

#include <random>

#include "protocol/encode.h"
#include "protocol/wire_header.h"
#include "tests/protocol/fingerprint_test_util.h"
#include "tests/protocol/protocol_test_util.h"

namespace sumcache::protocol {
namespace {

using testing::info_for;
using testing::kSecret;

constexpr std::uint64_t kChanges = std::uint64_t{1} << 24;

TEST(MessageBounds, FullIsTheRawArrayAndDeltaFollowsTheCodeLength) {
  EXPECT_EQ(full_payload_bound(1), 1U);
  EXPECT_EQ(full_payload_bound(8), 1U);
  EXPECT_EQ(full_payload_bound(9), 2U);
  // Every bit changed: gaps of 0 at r = 0 cost 2 bits; the bound allows 6.
  EXPECT_EQ(delta_payload_bound(800, kChanges), 600U);
  // 2^28 bits, 2^24 changes at most: 2^24 * (4 + 6) bits.
  EXPECT_EQ(delta_payload_bound(std::uint64_t{1} << 28, kChanges), (std::uint64_t{10} << 24) / 8);
  EXPECT_EQ(delta_payload_bound(0, kChanges), 0U);
  EXPECT_EQ(message_overhead_bound(6), kMaxHeaderBytes + 6 + kTagBytes);
  EXPECT_EQ(message_bound(800, kChanges, 6), message_overhead_bound(6) + 600);
}

TEST(MessageBounds, EveryEncodedMessageFits) {
  std::mt19937_64 rng(11);
  for (std::uint64_t m : {64U, 1000U, 65536U}) {
    for (double density : {0.0, 0.001, 0.05, 0.3, 0.5, 0.9, 1.0}) {
      auto bits = *filters::BloomFilter::create({m, 3});
      std::vector<filters::BitChange> changes;
      for (std::uint64_t i = 0; i < m; ++i) {
        const bool set = std::uniform_real_distribution<>(0, 1)(rng) < density;
        bits.set_bit(i, set);
        if (set) changes.push_back({i, rng() % 2 == 0});
      }
      const std::string full = encode_full(info_for(bits), bits, kSecret).value();
      ASSERT_FALSE(full.empty());
      EXPECT_LE(full.size(), message_bound(m, kChanges, 6)) << m << " " << density;
      EXPECT_LE(full.size(), message_overhead_bound(6) + full_payload_bound(m));
      const std::string delta = encode_delta(info_for(bits, 2), 1, changes, kSecret).value();
      ASSERT_FALSE(delta.empty());
      EXPECT_LE(delta.size(), message_overhead_bound(6) + delta_payload_bound(m, kChanges))
          << m << " " << density;
    }
  }
}

TEST(MessageBounds, OneChangeFarOutStillFits) {
  // The largest single gap: one change at the last position.
  const std::uint64_t m = 1'000'000;
  auto bits = *filters::BloomFilter::create({m, 3});
  const std::vector<filters::BitChange> changes{{m - 1, true}};
  const std::string delta = encode_delta(info_for(bits, 2), 1, changes, kSecret).value();
  EXPECT_LE(delta.size(), message_overhead_bound(6) + delta_payload_bound(m, kChanges));
}

// The fingerprint kinds' bounds (docs/protocol.md, "Size bounds").
TEST(MessageBounds, FingerprintListBitsFollowTheGapSize) {
  EXPECT_EQ(fingerprint_list_bits(0, 1000), 0U);
  EXPECT_EQ(fingerprint_list_bits(1000, 1000), 4000U);    // ratio 1: 4 bits each
  EXPECT_EQ(fingerprint_list_bits(5000, 1000), 20000U);   // repeats: still 4
  EXPECT_EQ(fingerprint_list_bits(100, 1000), 100U * 8);  // ceil(log2(10)) + 4
  EXPECT_EQ(fingerprint_list_bits(1, std::uint64_t{1} << 40), 44U);
  EXPECT_EQ(fingerprint_full_payload_bound(1000, 100), 100U);
  // 10^6 URLs at p = 0.24% against the receiver's 2^26: 7 bits each.
  EXPECT_EQ(fingerprint_full_payload_bound(417'710'000, std::uint64_t{1} << 26),
            (std::uint64_t{7} << 26) / 8);
  // The prefix, 2^24 ranks in [0, 2^26) at 6 bits and 2^24 additions at 9.
  EXPECT_EQ(fingerprint_delta_payload_bound(417'710'000, std::uint64_t{1} << 26, kChanges),
            9 + (std::uint64_t{15} << 24) / 8);
  EXPECT_EQ(fingerprint_delta_payload_bound(1000, 100, 0), 9U);
  // The larger of the two kinds' bounds: here the delta's, its additions
  // counted at 2^24 however small the universe.
  EXPECT_EQ(fingerprint_message_bound(800, 1000, kChanges, 6),
            message_overhead_bound(6) + fingerprint_delta_payload_bound(800, 1000, kChanges));
  EXPECT_EQ(fingerprint_message_bound(800, 1000, 0, 6),
            message_overhead_bound(6) + fingerprint_full_payload_bound(800, 1000));
}

// Every set and delta the encoder writes fits the bound for its own counts (N
// = its size, C = its changes), at densities from one per universe to far
// more fingerprints than the universe, and in clustered shapes.
TEST(MessageBounds, EveryEncodedFingerprintMessageFits) {
  std::uint64_t seed = 1;
  for (std::uint64_t universe : {1ULL, 97ULL, 65'536ULL, 417'710ULL, 1ULL << 40}) {
    for (std::uint64_t n : {1ULL, 10ULL, 1000ULL, 20'000ULL}) {
      for (double repeat : {0.0, 0.5, 0.99}) {
        const auto set = testing::random_fingerprints(universe, n, repeat, seed++);
        const std::string full =
            encode_fingerprint_full(testing::fingerprint_info(universe, n), set, kSecret).value();
        EXPECT_LE(full.size(),
                  message_overhead_bound(6) + fingerprint_full_payload_bound(universe, n))
            << universe << " " << n << " " << repeat;
        EXPECT_LE(full.size(), fingerprint_message_bound(universe, n, kChanges, 6));

        // Replace about half: ranks over n, additions over U.
        auto now = testing::random_fingerprints(universe, n / 2, repeat, seed++);
        now.insert(now.end(), set.begin(), set.begin() + static_cast<long>(n - n / 2));
        std::sort(now.begin(), now.end());
        const auto delta = filters::fingerprint_difference(set, now);
        const std::uint64_t changes = delta.removed_ranks.size() + delta.added.size();
        const std::string wire =
            encode_fingerprint_delta(testing::fingerprint_info(universe, now.size(), 2), 1, delta,
                                     kSecret)
                .value();
        EXPECT_LE(wire.size(),
                  message_overhead_bound(6) + fingerprint_delta_payload_bound(universe, n, changes))
            << universe << " " << n << " " << repeat;
      }
    }
  }
  // Clustered: everything at the top of the universe, the widest single gap.
  for (std::uint64_t universe : {2ULL, 1'000'003ULL}) {
    const std::vector<std::uint64_t> top(5000, universe - 1);
    const std::string full =
        encode_fingerprint_full(testing::fingerprint_info(universe, top.size()), top, kSecret)
            .value();
    EXPECT_LE(full.size(),
              message_overhead_bound(6) + fingerprint_full_payload_bound(universe, 5000));
  }
}

}  // namespace
}  // namespace sumcache::protocol
