#include <gtest/gtest.h>

#include "filters/bloom_filter.h"
#include "filters/byte_io.h"
#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

BloomFilter sample(std::uint64_t m = 1000, Hasher hasher = {}) {
  auto f = BloomFilter::create({m, 5}, hasher);
  EXPECT_TRUE(f.ok());
  for (int i = 0; i < 50; ++i) f->add("key-" + std::to_string(i));
  return std::move(f).value();
}

// Re-seals a mutated buffer so that only the field under test is wrong.
void reseal(std::vector<std::uint8_t>& bytes) {
  const std::uint64_t sum = checksum64(std::span(bytes).first(bytes.size() - 8));
  for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<std::uint8_t>(sum >> (8 * i));
}

TEST(BloomSerialize, RoundTripKeepsEverything) {
  for (std::uint64_t m : {1ULL, 63ULL, 64ULL, 1000ULL}) {
    const BloomFilter f = sample(m);
    auto back = BloomFilter::deserialize(f.serialize());
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_EQ(*back, f);
  }
  const BloomFilter md5 = sample(1000, *Hasher::create(HashId::md5));
  EXPECT_EQ(*BloomFilter::deserialize(md5.serialize()), md5);
  const BloomFilter seeded = sample(1000, *Hasher::create(HashId::xxh3_128, 99));
  EXPECT_EQ(*BloomFilter::deserialize(seeded.serialize()), seeded);
}

TEST(BloomSerialize, SizeIsHeaderWordsAndChecksum) {
  EXPECT_EQ(sample(1000).serialize().size(), 32U + 16 * 8 + 8);
}

TEST(BloomSerialize, EveryTruncationIsRejected) {
  const auto bytes = sample().serialize();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    auto r = BloomFilter::deserialize(std::span(bytes).first(n));
    ASSERT_FALSE(r.ok()) << n;
  }
}

TEST(BloomSerialize, TrailingBytesAreRejected) {
  auto bytes = sample().serialize();
  bytes.push_back(0);
  EXPECT_EQ(BloomFilter::deserialize(bytes).error(), FilterErrc::inconsistent_header);
}

TEST(BloomSerialize, EveryFlippedByteIsRejected) {
  const auto bytes = sample().serialize();
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    auto damaged = bytes;
    damaged[i] ^= 0x10;
    ASSERT_FALSE(BloomFilter::deserialize(damaged).ok()) << "byte " << i;
  }
}

TEST(BloomSerialize, HeaderFieldsAreCheckedOneByOne) {
  const auto good = sample().serialize();
  auto with = [&](std::size_t offset, std::uint8_t value) {
    auto b = good;
    b[offset] = value;
    reseal(b);
    return BloomFilter::deserialize(b).error();
  };
  EXPECT_EQ(with(0, 'X'), FilterErrc::bad_magic);
  EXPECT_EQ(with(4, 2), FilterErrc::unsupported_version);
  EXPECT_EQ(with(6, 7), FilterErrc::unknown_hash);
  EXPECT_EQ(with(7, 1), FilterErrc::inconsistent_header);
  EXPECT_EQ(with(8, 0), FilterErrc::invalid_hashes);
  EXPECT_EQ(with(8, 200), FilterErrc::invalid_hashes);
  EXPECT_EQ(with(25, 0xff), FilterErrc::truncated);  // m grows past the payload
  EXPECT_EQ(with(31, 0xff), FilterErrc::too_large);  // m above the 2^40 cap
}

TEST(BloomSerialize, CapOnBitsIsHonouredBeforeAllocating) {
  const auto bytes = sample(1000).serialize();
  EXPECT_EQ(BloomFilter::deserialize(bytes, 999).error(), FilterErrc::too_large);
  EXPECT_TRUE(BloomFilter::deserialize(bytes, 1000).ok());
}

TEST(BloomSerialize, BitsPastMInTheLastWordAreRejected) {
  auto bytes = sample(1000).serialize();
  // The last payload word holds bits 960..1023; bit 1000 lies past m.
  bytes[bytes.size() - 8 - 1] |= 0x80;
  reseal(bytes);
  EXPECT_EQ(BloomFilter::deserialize(bytes).error(), FilterErrc::inconsistent_header);
}

TEST(BloomSerialize, Md5WithSeedIsRejected) {
  auto bytes = sample(1000, *Hasher::create(HashId::md5)).serialize();
  bytes[16] = 1;  // seed
  reseal(bytes);
  EXPECT_EQ(BloomFilter::deserialize(bytes).error(), FilterErrc::invalid_seed);
}

}  // namespace
}  // namespace sumcache::filters
