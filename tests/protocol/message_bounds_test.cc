// The size bounds a receiver refuses larger messages by: every message the
// real encoder writes fits them, at the densities where each is tightest.

#include "protocol/message_bounds.h"

#include <gtest/gtest.h>

#include <random>

#include "protocol/encode.h"
#include "protocol/wire_header.h"
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

}  // namespace
}  // namespace sumcache::protocol
