// The Squid cache digest codec (docs/protocol.md, "Squid cache digests"):
// sizing, store key, probe positions and bit order, Squid's receiver checks in
// order with the error for each, and the Bloom filter's false positive rate.

#include "protocol/squid_digest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace sumcache::protocol {
namespace {

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

SquidStoreKey key_of_words(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  SquidStoreKey key{};
  const std::uint32_t words[4] = {a, b, c, d};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      key[4 * i + j] = static_cast<std::uint8_t>(words[i] >> (24 - 8 * j));
  return key;
}

std::string hex(const SquidStoreKey& key) {
  static const char* digits = "0123456789ABCDEF";
  std::string out;
  for (const std::uint8_t b : key) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

void put_be16(std::string& s, std::size_t at, std::uint16_t v) {
  s[at] = static_cast<char>(v >> 8);
  s[at + 1] = static_cast<char>(v);
}

void put_be32(std::string& s, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + i] = static_cast<char>(v >> (24 - 8 * i));
}

// A valid digest body: capacity 100 at 5 bits per entry (63 mask bytes), ten keys.
std::string valid_body() {
  SquidDigest digest(100);
  for (int i = 0; i < 10; ++i)
    digest.add(squid_store_key("http://valid.test/" + std::to_string(i)));
  return digest.encode();
}

// A body of `capacity` entries at `bpe` bits with the first `bits_on` mask bits set.
std::string body_with_bits(std::uint32_t capacity, unsigned bpe, std::uint64_t bits_on) {
  std::string body = SquidDigest(capacity, bpe).encode();
  for (std::uint64_t b = 0; b < bits_on; ++b)
    body[kSquidDigestHeaderBytes + b / 8] = static_cast<char>(
        static_cast<std::uint8_t>(body[kSquidDigestHeaderBytes + b / 8]) | (1U << (b % 8)));
  return body;
}

// Decoding `body` fails with `want`, from the header decoder too when the
// header is at fault, and leaves a previously decoded digest as it was.
void expect_refused(const std::string& body, SquidDigestErrc want,
                    std::uint32_t limit = kSquidDigestMaxMaskBytes) {
  SquidDigest before;
  ASSERT_FALSE(SquidDigest::decode(as_bytes(valid_body()), kSquidDigestMaxMaskBytes, before));
  SquidDigest out = before;
  EXPECT_EQ(SquidDigest::decode(as_bytes(body), limit, out), make_error_code(want));
  EXPECT_EQ(out.header(), before.header());
  EXPECT_TRUE(std::ranges::equal(out.mask(), before.mask()));
}

void expect_header_refused(const std::string& body, SquidDigestErrc want,
                           std::uint32_t limit = kSquidDigestMaxMaskBytes) {
  expect_refused(body, want, limit);
  SquidDigestHeader out;
  out.capacity = 12345;
  const SquidDigestHeader before = out;
  EXPECT_EQ(decode_squid_digest_header(as_bytes(body), limit, out), make_error_code(want));
  EXPECT_EQ(out, before);
}

TEST(SquidDigestSize, MaskIsCeilOfCapacityTimesBitsPerEntryOverEight) {
  EXPECT_EQ(squid_digest_mask_size(1, 5), 1u);
  EXPECT_EQ(squid_digest_mask_size(8, 5), 5u);
  EXPECT_EQ(squid_digest_mask_size(9, 5), 6u);
  EXPECT_EQ(squid_digest_mask_size(173, 5), 109u);  // the golden Squid digest's
  EXPECT_EQ(squid_digest_mask_size(3, 3), 2u);
  EXPECT_EQ(squid_digest_mask_size(0x7fffffff, 255), (0x7fffffffULL * 255 + 7) / 8);
  EXPECT_EQ(SquidDigest(100).header().mask_size, 63u);
  EXPECT_EQ(SquidDigest(100).mask().size(), 63u);
}

// storeKeyPublic: MD5 over the GET method's id byte (1) then the URL; the
// expected values are MD5 computed apart (python3 hashlib) over "\x01" + URL.
TEST(SquidStoreKey, IsMd5OfTheGetByteThenTheUrl) {
  EXPECT_EQ(hex(squid_store_key("http://example.com/")), "5C9109034C1D089FB6D92F7258B2F5C3");
  EXPECT_EQ(hex(squid_store_key("http://127.0.0.1:8080/obj/1?a=1")),
            "6161C4B88CA146C5EF7982E8B4FA2519");
  EXPECT_EQ(hex(squid_store_key("")), "55A54008AD1BA589AA210D2629C1DF41");
}

TEST(SquidDigestPositions, AreTheKeysBigEndianWordsModuloTheMaskBits) {
  const auto key = key_of_words(5, 0x100, 0xffffffff, 0x12345678);
  const std::array<std::uint32_t, 4> want = {5, 256, 4294967295U % 1000, 0x12345678U % 1000};
  EXPECT_EQ(squid_digest_positions(key, 1000), want);
  SquidStoreKey bytes{};
  bytes[0] = 0x01;  // the first word's most significant byte
  EXPECT_EQ(squid_digest_positions(bytes, 0xffffffff)[0], 0x01000000u);
}

// Bit b is bit (b % 8) of byte b / 8 (Squid's CBIT_SET), least significant first.
TEST(SquidDigestPositions, BitBIsBitBMod8OfByteBDiv8) {
  SquidDigest digest(8);  // 5 bytes, 40 bits
  digest.add(key_of_words(0, 9, 17, 39));
  const std::vector<std::uint8_t> want = {0x01, 0x02, 0x02, 0x00, 0x80};
  EXPECT_TRUE(std::ranges::equal(digest.mask(), want));
  EXPECT_EQ(digest.bits_set(), 4u);
  digest.add(key_of_words(40, 49, 57, 79));  // the same positions, modulo 40
  EXPECT_TRUE(std::ranges::equal(digest.mask(), want));
  EXPECT_EQ(digest.header().count, 2u);
}

TEST(SquidDigest, ContainsWhatWasAddedAndCountsIt) {
  SquidDigest digest(1000);
  EXPECT_FALSE(digest.contains(squid_store_key("http://a.test/")));
  digest.add(squid_store_key("http://a.test/"));
  EXPECT_TRUE(digest.contains(squid_store_key("http://a.test/")));
  EXPECT_EQ(digest.header().count, 1u);
  EXPECT_EQ(digest.bits_set(), 4u);  // four distinct positions for this key
  EXPECT_FALSE(SquidDigest().contains(squid_store_key("http://a.test/")));
}

// cacheDigestReport's "util" is xpercentInt: rint, which rounds ties to even.
TEST(SquidDigest, UsedPercentRoundsAsSquidsReport) {
  const auto used = [](std::uint32_t capacity, unsigned bpe, std::uint64_t on) {
    SquidDigest d;
    EXPECT_FALSE(SquidDigest::decode(as_bytes(body_with_bits(capacity, bpe, on)), 1 << 20, d));
    return d.used_percent();
  };
  EXPECT_EQ(used(1, 8, 0), 0u);
  EXPECT_EQ(used(1, 8, 5), 62u);      // 62.5: tie, to even
  EXPECT_EQ(used(1, 8, 3), 38u);      // 37.5: tie, to even
  EXPECT_EQ(used(8, 5, 1), 2u);       // 2.5: tie, to even
  EXPECT_EQ(used(8, 5, 7), 18u);      // 17.5: tie, to even
  EXPECT_EQ(used(8, 5, 6), 15u);      // exactly 15
  EXPECT_EQ(used(173, 5, 474), 54u);  // 54.36
  EXPECT_EQ(used(173, 5, 466), 53u);  // 53.44: the golden digest, whose report says 53%
}

TEST(SquidDigest, RoundTripsThroughItsEncoding) {
  SquidDigest digest(500, 7);
  for (int i = 0; i < 400; ++i) digest.add(squid_store_key("http://rt.test/" + std::to_string(i)));
  const std::string bytes = digest.encode();
  ASSERT_EQ(bytes.size(), kSquidDigestHeaderBytes + squid_digest_mask_size(500, 7));
  SquidDigest back;
  ASSERT_FALSE(SquidDigest::decode(as_bytes(bytes), 1 << 20, back));
  EXPECT_EQ(back.header(), digest.header());
  EXPECT_EQ(back.header().bits_per_entry, 7);
  EXPECT_TRUE(std::ranges::equal(back.mask(), digest.mask()));
  EXPECT_EQ(back.encode(), bytes);
  for (int i = 0; i < 400; ++i)
    EXPECT_TRUE(back.contains(squid_store_key("http://rt.test/" + std::to_string(i))));
}

TEST(SquidDigestHeader, LaysOutStoreDigestCBlockBigEndian) {
  SquidDigest digest(100);
  const std::string bytes = digest.encode();
  const std::vector<std::uint8_t> want_prefix = {0, 5, 0, 3, 0, 0, 0, 100, 0,  0, 0,
                                                 0, 0, 0, 0, 0, 0, 0, 0,   63, 5, 4};
  EXPECT_TRUE(std::equal(want_prefix.begin(), want_prefix.end(), as_bytes(bytes).begin()));
  EXPECT_TRUE(std::all_of(bytes.begin() + 22, bytes.begin() + 128, [](char c) { return c == 0; }));
}

// --- the receiver's checks, in order (peerDigestSetCBlock, then the body, then peerDigestUseful)

TEST(SquidDigestDamage, ShortHeaderIsTruncated) {
  const std::string body = valid_body();
  for (std::size_t n : {0, 1, 21, 127})
    expect_header_refused(body.substr(0, n), SquidDigestErrc::truncated);
}

TEST(SquidDigestDamage, ShortMaskIsTruncatedAndALongOneHasTrailingBytes) {
  const std::string body = valid_body();
  expect_refused(body.substr(0, body.size() - 1), SquidDigestErrc::truncated);
  expect_refused(body.substr(0, kSquidDigestHeaderBytes), SquidDigestErrc::truncated);
  expect_refused(body + '\0', SquidDigestErrc::trailing_bytes);
}

TEST(SquidDigestDamage, VersionRulesBothWays) {
  std::string b = valid_body();
  put_be16(b, 2, 6);  // requires a version above ours
  expect_header_refused(b, SquidDigestErrc::version_unsupported);
  b = valid_body();
  put_be16(b, 0, 2);  // older than the least we read...
  put_be16(b, 2, 2);  // ...however little it requires
  expect_header_refused(b, SquidDigestErrc::version_unsupported);
  b = valid_body();
  put_be16(b, 0, 0x8005);  // negative as Squid's short
  expect_header_refused(b, SquidDigestErrc::version_unsupported);
  b = valid_body();
  put_be16(b, 0, 9);  // a newer sender that we can still read
  put_be16(b, 2, 5);
  SquidDigest out;
  EXPECT_FALSE(SquidDigest::decode(as_bytes(b), 1 << 20, out));
  EXPECT_EQ(out.header().version, 9);
  EXPECT_EQ(out.encode(), b);
}

TEST(SquidDigestDamage, EachInconsistencyIsRefused) {
  struct Case {
    const char* what;
    std::size_t at;
    int width;
    std::uint32_t value;
  };
  const Case cases[] = {
      {"required > current", 2, 2, 4},  // current is 3 below
      {"negative required", 2, 2, 0xffff},       {"zero capacity", 4, 4, 0},
      {"negative capacity", 4, 4, 0x80000064},   {"negative count", 8, 4, 0x80000000},
      {"negative del_count", 12, 4, 0xffffffff}, {"zero mask_size", 16, 4, 0},
      {"negative mask_size", 16, 4, 0x8000003f}, {"zero bits_per_entry", 20, 1, 0},
      {"zero hash_func_count", 21, 1, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string b = valid_body();
    put_be16(b, 0, 3);
    put_be16(b, 2, 3);
    if (c.width == 1) b[c.at] = static_cast<char>(c.value);
    if (c.width == 2) put_be16(b, c.at, static_cast<std::uint16_t>(c.value));
    if (c.width == 4) put_be32(b, c.at, c.value);
    expect_header_refused(b, SquidDigestErrc::inconsistent_header);
  }
}

TEST(SquidDigestDamage, MaskSizeMustMatchCapacityAndBitsPerEntry) {
  std::string b = valid_body();
  put_be32(b, 16, 64);  // 63 is ceil(100 * 5 / 8)
  expect_header_refused(b + '\0', SquidDigestErrc::mask_size_mismatch);
  b = valid_body();
  b[20] = 4;  // 100 * 4 / 8 = 50 bytes
  expect_header_refused(b, SquidDigestErrc::mask_size_mismatch);
  b = valid_body();
  put_be32(b, 4, 101);  // 101 * 5 / 8 rounds up to 64
  expect_header_refused(b, SquidDigestErrc::mask_size_mismatch);
}

TEST(SquidDigestDamage, HashCountOtherThanFourIsUnsupported) {
  for (const std::uint8_t k : {1, 3, 5, 255}) {
    std::string b = valid_body();
    b[21] = static_cast<char>(k);
    expect_header_refused(b, SquidDigestErrc::hash_count_unsupported);
  }
}

// A header alone that claims a huge mask is refused before a byte of the mask
// is read: too_large, not truncated, and nothing allocated for it.
TEST(SquidDigestDamage, TooLargeIsRefusedFromTheHeaderAlone) {
  std::string b = valid_body().substr(0, kSquidDigestHeaderBytes);
  put_be32(b, 4, 0x7fffffff / 8);  // capacity * 8 bits = 256 MiB of mask
  b[20] = 8;
  put_be32(b, 16, 0x7fffffff / 8);
  expect_header_refused(b, SquidDigestErrc::too_large, 1 << 20);
  put_be32(b, 4, 0x7ffffff8 / 8 + 1);  // over what Squid itself can build, whatever the limit
  put_be32(b, 16, 0x7ffffff8 / 8 + 1);
  expect_header_refused(b, SquidDigestErrc::too_large, 0xffffffff);
  put_be32(b, 4, 0x7ffffff8 / 8);  // at the absolute cap: only the caller's limit can refuse
  put_be32(b, 16, 0x7ffffff8 / 8);
  SquidDigestHeader h;
  EXPECT_FALSE(decode_squid_digest_header(as_bytes(b), 0xffffffff, h));
  EXPECT_EQ(h.mask_size, kSquidDigestMaxMaskBytes);
  expect_refused(b, SquidDigestErrc::truncated, 0xffffffff);
}

TEST(SquidDigestDamage, TheCallersLimitIsInclusive) {
  const std::string b = valid_body();  // 63 mask bytes
  expect_header_refused(b, SquidDigestErrc::too_large, 62);
  SquidDigest out;
  EXPECT_FALSE(SquidDigest::decode(as_bytes(b), 63, out));
}

// peerDigestUseful: more than 65% of the bits on, compared unrounded.
TEST(SquidDigestDamage, MoreThanSixtyFivePercentOfBitsSetIsUseless) {
  SquidDigest out;
  EXPECT_FALSE(SquidDigest::decode(as_bytes(body_with_bits(8, 5, 26)), 1 << 20, out));  // 65.0%
  EXPECT_FALSE(out.too_many_bits_set());
  expect_refused(body_with_bits(8, 5, 27), SquidDigestErrc::too_many_bits_set);  // 67.5%
  EXPECT_FALSE(SquidDigest::decode(as_bytes(body_with_bits(200, 5, 650)), 1 << 20, out));
  expect_refused(body_with_bits(200, 5, 651),
                 SquidDigestErrc::too_many_bits_set);  // 65.1%: "65" rounded
  expect_refused(body_with_bits(100, 5, 500), SquidDigestErrc::too_many_bits_set);  // all set

  SquidDigest full(8);
  for (std::uint32_t i = 0; i < 40; ++i) full.add(key_of_words(i, i, i, i));
  EXPECT_TRUE(full.too_many_bits_set());
  EXPECT_EQ(full.used_percent(), 100u);
}

TEST(SquidDigestErrors, EachCodeHasItsOwnMessage) {
  EXPECT_STREQ(squid_digest_category().name(), "sumcache.protocol.squid_digest");
  std::vector<std::string> messages;
  for (int e = 0; e <= static_cast<int>(SquidDigestErrc::too_many_bits_set); ++e)
    messages.push_back(make_error_code(static_cast<SquidDigestErrc>(e)).message());
  for (const auto& m : messages) EXPECT_FALSE(m.empty());
  std::sort(messages.begin(), messages.end());
  EXPECT_EQ(std::unique(messages.begin(), messages.end()), messages.end());
}

// --- the filter as a filter: 5 bits per entry, k = 4

TEST(SquidDigestProperty, NoFalseNegativesAndTheFalsePositiveRateOfTheFormula) {
  constexpr std::uint32_t kEntries = 20000;
  constexpr int kProbes = 200000;
  std::mt19937_64 rng(20261124);
  const auto random_key = [&rng] {
    SquidStoreKey key;
    for (auto& b : key) b = static_cast<std::uint8_t>(rng());
    return key;
  };
  SquidDigest digest(kEntries);  // full at capacity: n = capacity, m = 5n bits
  std::vector<SquidStoreKey> added(kEntries);
  for (auto& key : added) {
    key = random_key();
    digest.add(key);
  }
  for (const auto& key : added) ASSERT_TRUE(digest.contains(key));
  int false_positives = 0;
  for (int i = 0; i < kProbes; ++i) false_positives += digest.contains(random_key()) ? 1 : 0;
  const double measured = static_cast<double>(false_positives) / kProbes;
  const double m = digest.header().mask_size * 8.0;
  const double expected = std::pow(1 - std::exp(-4.0 * kEntries / m), 4);  // about 9.2%
  std::cout << "squid digest FPR at 5 bits/entry, k=4, n=" << kEntries << ": measured " << measured
            << ", formula " << expected << ", bits used " << digest.used_percent() << "%\n";
  RecordProperty("measured_fpr", std::to_string(measured));
  EXPECT_NEAR(expected, 0.092, 0.001);
  EXPECT_NEAR(measured, expected, 0.005);
  EXPECT_FALSE(digest.too_many_bits_set());  // about 55% of bits set at capacity
}

// Squid's MD5 keys behave as the random ones above: URLs that differ in one
// character do not collide in their probes more than chance allows.
TEST(SquidDigestProperty, UrlKeysGiveTheSameRate) {
  constexpr std::uint32_t kEntries = 5000;
  constexpr int kProbes = 50000;
  SquidDigest digest(kEntries);
  for (std::uint32_t i = 0; i < kEntries; ++i)
    digest.add(squid_store_key("http://origin.test/obj/" + std::to_string(i)));
  for (std::uint32_t i = 0; i < kEntries; ++i)
    ASSERT_TRUE(digest.contains(squid_store_key("http://origin.test/obj/" + std::to_string(i))));
  int false_positives = 0;
  for (int i = 0; i < kProbes; ++i)
    false_positives +=
        digest.contains(squid_store_key("http://origin.test/miss/" + std::to_string(i))) ? 1 : 0;
  const double measured = static_cast<double>(false_positives) / kProbes;
  const double expected =
      std::pow(1 - std::exp(-4.0 * kEntries / (digest.header().mask_size * 8.0)), 4);
  std::cout << "squid digest FPR over URL keys, n=" << kEntries << ": measured " << measured
            << "\n";
  EXPECT_NEAR(measured, expected, 0.01);
}

}  // namespace
}  // namespace sumcache::protocol
