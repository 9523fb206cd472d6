#include "daemon/store/object_file.h"

#include <gtest/gtest.h>

#include "daemon/store/object_path.h"
#include "daemon/store/store_error.h"
#include "filters/byte_io.h"

namespace sumcache::daemon {
namespace {

const filters::Hasher kHasher;

StoredObject sample() {
  StoredObject o;
  o.key = "http://example.org/a";
  o.variant = "gzip";
  o.hash = kHasher(o.key);
  o.meta = "m";
  o.head = "HTTP/1.1 200 OK\r\n\r\n";
  o.body_size = 5;
  return o;
}

TEST(ObjectFile, HeaderRoundTripsEveryField) {
  const StoredObject o = sample();
  const auto bytes = encode_header(o, kHasher, 42);
  auto prelude = decode_prelude(bytes, bytes.size() + o.body_size + kChecksumBytes, 100, kHasher);
  ASSERT_TRUE(prelude.ok()) << prelude.error().message();
  EXPECT_EQ(prelude->header_bytes, bytes.size());
  EXPECT_EQ(prelude->sequence, 42U);
  EXPECT_EQ(prelude->body_bytes, 5U);
  EXPECT_EQ(prelude->file_bytes(), file_bytes_for(o));
  auto header = decode_header(*prelude, bytes, kHasher);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_EQ(header->key, o.key);
  EXPECT_EQ(header->variant, o.variant);
  EXPECT_EQ(header->meta, o.meta);
  EXPECT_EQ(header->head, o.head);
  EXPECT_EQ(header->prelude.key_hash, o.hash);
}

TEST(ObjectFile, PreludeIsLittleEndianAtFixedOffsets) {
  const auto bytes = encode_header(sample(), kHasher, 0x0102030405060708ULL);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "SCOB");
  EXPECT_EQ(bytes[4], 1);  // version
  EXPECT_EQ(bytes[5], 0);
  EXPECT_EQ(bytes[64], 0x08);  // sequence, low byte first
  EXPECT_EQ(bytes[71], 0x01);
}

TEST(ObjectFile, FileSizeMustMatchTheHeaderExactly) {
  const StoredObject o = sample();
  const auto bytes = encode_header(o, kHasher, 1);
  const std::uint64_t exact = file_bytes_for(o);
  EXPECT_EQ(decode_prelude(bytes, exact - 1, 100, kHasher).error(), StoreErrc::truncated);
  EXPECT_EQ(decode_prelude(bytes, exact + 1, 100, kHasher).error(), StoreErrc::inconsistent_header);
  EXPECT_EQ(decode_prelude(std::span(bytes).first(kPreludeBytes - 1), exact, 100, kHasher).error(),
            StoreErrc::truncated);
}

TEST(ObjectFile, RejectsBadMagicVersionCapsAndHasher) {
  const StoredObject o = sample();
  const std::uint64_t size = file_bytes_for(o);
  auto bytes = encode_header(o, kHasher, 1);
  auto damaged = bytes;
  damaged[0] = 'X';
  EXPECT_EQ(decode_prelude(damaged, size, 100, kHasher).error(), StoreErrc::bad_magic);
  damaged = bytes;
  damaged[4] = 2;
  EXPECT_EQ(decode_prelude(damaged, size, 100, kHasher).error(), StoreErrc::unsupported_version);
  damaged = bytes;
  damaged[15] = 0x7F;  // key length's high byte: far above the cap
  EXPECT_EQ(decode_prelude(damaged, size, 100, kHasher).error(), StoreErrc::field_too_large);
  EXPECT_EQ(decode_prelude(bytes, size, 4, kHasher).error(), StoreErrc::too_large);
  auto seeded = filters::Hasher::create(filters::HashId::xxh3_128, 7);
  ASSERT_TRUE(seeded.ok());
  EXPECT_EQ(decode_prelude(bytes, size, 100, *seeded).error(), StoreErrc::hasher_mismatch);
}

TEST(ObjectFile, HeaderChecksumCatchesAFlippedByte) {
  const StoredObject o = sample();
  auto bytes = encode_header(o, kHasher, 1);
  auto prelude = decode_prelude(bytes, file_bytes_for(o), 100, kHasher);
  ASSERT_TRUE(prelude.ok());
  bytes[kPreludeBytes + 3] ^= 0x20;  // inside the key
  EXPECT_EQ(decode_header(*prelude, bytes, kHasher).error(), StoreErrc::checksum_mismatch);
}

TEST(ObjectFile, KeyMustHashToTheStoredHash) {
  StoredObject o = sample();
  o.hash.h2 ^= 1;  // a file claiming another key's hash, its checksum intact
  const auto bytes = encode_header(o, kHasher, 1);
  auto prelude = decode_prelude(bytes, file_bytes_for(o), 100, kHasher);
  ASSERT_TRUE(prelude.ok());
  EXPECT_EQ(decode_header(*prelude, bytes, kHasher).error(), StoreErrc::inconsistent_header);
}

TEST(ObjectFile, FieldCapsRefuseOversizedObjects) {
  StoredObject o = sample();
  EXPECT_FALSE(check_field_caps(o));
  o.head.assign(kMaxHeadBytes + 1, 'h');
  EXPECT_EQ(check_field_caps(o), StoreErrc::field_too_large);
}

TEST(ObjectPath, NameRoundTripsThroughTheHashes) {
  const filters::Hash128 h{0xabcd000000000001ULL, 0x2ULL};
  const std::string plain = object_file_path("/r", h, 0);
  EXPECT_EQ(plain, "/r/a/bc/abcd0000000000010000000000000002");
  const std::string with_variant = object_file_path("/r", h, 0x11);
  auto parsed = parse_object_path(std::string_view(with_variant).substr(3));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->hash, h);
  EXPECT_EQ(parsed->variant_hash, 0x11U);
  EXPECT_FALSE(parsed->legacy);
  EXPECT_FALSE(parse_object_path("a/bc/abcd0000000000010000000000000002.tmp"));
  EXPECT_FALSE(parse_object_path("f/bc/abcd0000000000010000000000000002"));  // wrong dir
  EXPECT_FALSE(parse_object_path("a/bd/abcd0000000000010000000000000002"));  // wrong dir
  EXPECT_FALSE(parse_object_path("a/bc/ABCD0000000000010000000000000002"));
}

TEST(ObjectPath, TheEarlierLayoutParsesAsLegacy) {
  const auto parsed = parse_object_path("ab/cd/abcd0000000000010000000000000002.0000000000000011");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_TRUE(parsed->legacy);
  EXPECT_EQ(parsed->hash, (filters::Hash128{0xabcd000000000001ULL, 0x2ULL}));
  EXPECT_EQ(parsed->variant_hash, 0x11U);
  EXPECT_FALSE(parse_object_path("ff/cd/abcd0000000000010000000000000002"));  // wrong dir
}

TEST(StoredObject, VariantHashIsZeroOnlyForNoVariant) {
  EXPECT_EQ(variant_hash(kHasher, ""), 0U);
  EXPECT_EQ(variant_hash(kHasher, "gzip") & 1U, 1U);
  EXPECT_NE(variant_hash(kHasher, "gzip"), variant_hash(kHasher, "br"));
}

}  // namespace
}  // namespace sumcache::daemon
