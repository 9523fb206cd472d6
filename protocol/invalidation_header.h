#pragma once
// The fixed header of an invalidation message, field by field (docs/protocol.md,
// "Invalidation messages", "Layout"). Fields are kept as their wire values,
// unchecked: the decoder validates them, and tests write invalid ones.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/wire_ids.h"

namespace sumcache::protocol {

inline constexpr std::uint32_t kInvalidationMagic = 0x56494353;  // "SCIV" little-endian
inline constexpr std::size_t kInvalidationHeaderBytes = 44;      // v1's fixed header
inline constexpr std::uint16_t kFlagMissed = 1;  // the receiver missed invalidations no longer held

struct InvalidationHeader {
  std::uint16_t version = kInvalidationVersion;
  std::uint16_t min_version = kInvalidationMinVersion;
  std::uint16_t header_bytes = kInvalidationHeaderBytes;
  std::uint8_t kind = 0;
  std::uint8_t node_id_bytes = 0;
  std::uint16_t count = 0;
  std::uint16_t flags = 0;
  std::uint64_t epoch = 0;
  std::uint64_t sequence = 0;  // invalidations: first_seq; ack: acked_through
  std::uint64_t missed_until_ms = 0;
  std::uint32_t payload_bytes = 0;
};

// Appends the magic and the v1 fields: kInvalidationHeaderBytes bytes, whatever header_bytes says.
void append_invalidation_header(std::string& out, const InvalidationHeader& header);
// Reads the v1 fields; requires bytes.size() >= kInvalidationHeaderBytes. The magic is the
// caller's check.
InvalidationHeader read_invalidation_header(std::string_view bytes);

}  // namespace sumcache::protocol
