#pragma once
// The fixed header of a summary message, field by field (docs/protocol.md,
// "Layout"). Fields are kept as their wire values, unchecked: the decoder
// validates them, and tests write invalid ones.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/wire_ids.h"

namespace sumcache::protocol {

inline constexpr std::uint32_t kMagic = 0x4D534353;   // "SCSM" little-endian
inline constexpr std::size_t kHeaderBytes = 84;       // v1's fixed header
inline constexpr std::size_t kMaxHeaderBytes = 1024;  // room for later versions' fields
inline constexpr std::size_t kTagBytes = 32;          // HMAC-SHA256
inline constexpr std::uint8_t kFlagCodesZeros = 1;    // a rice-coded full lists its zero bits
inline constexpr unsigned kMaxRiceParameter = 63;

struct WireHeader {
  std::uint16_t version = kBloomVersion;
  std::uint16_t min_version = kMinVersion;
  std::uint16_t header_bytes = kHeaderBytes;
  std::uint8_t kind = 0;
  std::uint8_t compression = 0;
  std::uint8_t hash_id = 0;
  std::uint8_t node_id_bytes = 0;
  std::uint8_t rice_parameter = 0;
  std::uint8_t flags = 0;
  std::uint32_t k = 0;
  std::uint64_t seed = 0;
  std::uint64_t epoch = 0;
  std::uint64_t sequence = 0;
  std::uint64_t base_sequence = 0;
  std::uint64_t m = 0;
  std::uint64_t entries = 0;
  std::uint64_t payload_count = 0;
  std::uint64_t payload_bytes = 0;
};

// Appends the magic and the v1 fields: kHeaderBytes bytes, whatever header_bytes says.
void append_header(std::string& out, const WireHeader& header);
// Reads the v1 fields; requires bytes.size() >= kHeaderBytes. The magic is the caller's check.
WireHeader read_header(std::string_view bytes);

}  // namespace sumcache::protocol
