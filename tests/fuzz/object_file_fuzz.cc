// An object file of the disk tier (daemon/store/object_file.h, docs/store.md "File
// format") as the store opens it (open_object_file in object_file_io.cc, done here
// on memory: the first 4 KiB, the prelude, then the whole header), its body and
// trailer checksum, and what a hit reads from it: the cache meta and the stored head.
//
// Random bytes never carry valid checksums or a key hash that matches the key, so
// the target repairs those three where the lengths allow (a damaged file whose
// checksums still match is what the fuzzer then explores).
// Properties: a header that decodes encodes back to the same bytes; the fields
// lie within the file.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "daemon/cache/cached_meta.h"
#include "daemon/cache/stored_head.h"
#include "daemon/store/object_file.h"
#include "filters/byte_io.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::daemon;
namespace filters = sumcache::filters;

namespace {

constexpr std::size_t kFirstRead = 4096;            // object_file_io.cc
constexpr std::uint64_t kMaxBodyBytes = 64u << 20;  // max_object_bytes' default
constexpr std::size_t kHeaderBytesAt = 8, kKeyBytesAt = 12, kKeyHashAt = 40, kBodyBytesAt = 56;

std::uint64_t le_at(const std::vector<std::uint8_t>& b, std::size_t at, std::size_t width) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < width; ++i) v |= std::uint64_t{b[at + i]} << (8 * i);
  return v;
}

void put_at(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

void repair(std::vector<std::uint8_t>& file, const filters::Hasher& hasher) {
  if (file.size() < kPreludeBytes) return;
  const std::uint64_t header_bytes = le_at(file, kHeaderBytesAt, 4);
  const std::uint64_t key_bytes = le_at(file, kKeyBytesAt, 4);
  if (header_bytes > file.size() || header_bytes < kPreludeBytes + key_bytes + kChecksumBytes) {
    return;
  }
  const auto key = std::string_view(reinterpret_cast<const char*>(file.data()) + kPreludeBytes,
                                    static_cast<std::size_t>(key_bytes));
  const filters::Hash128 h = hasher(key);
  put_at(file, kKeyHashAt, h.h1);
  put_at(file, kKeyHashAt + 8, h.h2);
  const std::size_t sum_at = static_cast<std::size_t>(header_bytes) - kChecksumBytes;
  put_at(file, sum_at, filters::checksum64(std::span(file).first(sum_at)));
  const std::uint64_t body_bytes = le_at(file, kBodyBytesAt, 8);
  if (body_bytes <= file.size() && header_bytes + body_bytes + kChecksumBytes == file.size()) {
    const std::size_t trailer_at = file.size() - kChecksumBytes;
    put_at(file, trailer_at, filters::checksum64(std::span(file).first(trailer_at)));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const filters::Hasher hasher;
  std::vector<std::uint8_t> file(data, data + size);
  repair(file, hasher);
  const std::span<const std::uint8_t> bytes(file);
  const auto prelude =
      decode_prelude(bytes.first(std::min(bytes.size(), kFirstRead)), size, kMaxBodyBytes, hasher);
  if (!prelude) return 0;
  SUMCACHE_FUZZ_CHECK(prelude->file_bytes() == size);
  const auto header = decode_header(*prelude, bytes.first(prelude->header_bytes), hasher);
  if (!header) return 0;
  const StoredObject object{header->key,  header->variant, prelude->key_hash,  header->meta,
                            header->head, nullptr,         prelude->body_bytes};
  SUMCACHE_FUZZ_CHECK(!check_field_caps(object));
  SUMCACHE_FUZZ_CHECK(file_bytes_for(object) == size);
  const auto encoded = encode_header(object, hasher, prelude->sequence);
  SUMCACHE_FUZZ_CHECK(std::equal(encoded.begin(), encoded.end(), bytes.begin(),
                                 bytes.begin() + prelude->header_bytes));
  const std::size_t trailer_at = size - kChecksumBytes;
  const bool verified =
      filters::checksum64(bytes.first(trailer_at)) == le_at(file, trailer_at, kChecksumBytes);
  if (!verified) return 0;  // the store drops the file
  if (const auto meta = decode_meta(header->meta)) {
    SUMCACHE_FUZZ_CHECK(decode_meta(encode_meta(*meta)) == meta);
  }
  const StoredHead head = parse_stored_head(header->head);
  static_cast<void>(build_head(head.status_line, head.fields));
  return 0;
}
