#pragma once
// The object file format of the disk tier (docs/store.md, "File format"):
// encoding and every check, no I/O. Little-endian fields, each length capped
// and checked against the others and the file size before anything is
// allocated.

#include <cstdint>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "daemon/store/stored_object.h"
#include "filters/hashing.h"
#include "filters/result.h"

namespace sumcache::daemon {

inline constexpr std::uint16_t kObjectFileVersion = 1;
inline constexpr std::size_t kPreludeBytes = 72;
inline constexpr std::size_t kChecksumBytes = 8;
// Caps far above real URLs, Vary values and response heads, low enough that a
// damaged length cannot make a reader allocate much.
inline constexpr std::uint32_t kMaxKeyBytes = 16 * 1024;
inline constexpr std::uint32_t kMaxVariantBytes = 16 * 1024;
inline constexpr std::uint32_t kMaxMetaBytes = 64 * 1024;
inline constexpr std::uint32_t kMaxHeadBytes = 256 * 1024;

// The fixed-size start of a file.
struct Prelude {
  std::uint32_t header_bytes = 0;  // offset 0 through the header checksum
  std::uint32_t key_bytes = 0;
  std::uint32_t variant_bytes = 0;
  std::uint32_t meta_bytes = 0;
  std::uint32_t head_bytes = 0;
  filters::Hash128 key_hash;
  std::uint64_t body_bytes = 0;
  std::uint64_t sequence = 0;  // write order, for the LRU order after a restart
  std::uint64_t file_bytes() const { return header_bytes + body_bytes + kChecksumBytes; }
};

struct ObjectHeader {
  Prelude prelude;
  std::string key;
  std::string variant;
  std::string meta;
  std::string head;
};

// Refuses fields above the caps (field_too_large).
std::error_code check_field_caps(const StoredObject& object);
// Requires check_field_caps(object) to pass.
std::vector<std::uint8_t> encode_header(const StoredObject& object, const filters::Hasher& hasher,
                                        std::uint64_t sequence);
std::uint64_t file_bytes_for(const StoredObject& object);

// bytes: the first kPreludeBytes (or more) of a file of file_bytes bytes.
Result<Prelude> decode_prelude(std::span<const std::uint8_t> bytes, std::uint64_t file_bytes,
                               std::uint64_t max_body_bytes, const filters::Hasher& hasher);
// header: exactly prelude.header_bytes bytes. Verifies the header checksum and
// that the key hashes to the stored key hash.
Result<ObjectHeader> decode_header(const Prelude& prelude, std::span<const std::uint8_t> header,
                                   const filters::Hasher& hasher);

}  // namespace sumcache::daemon
