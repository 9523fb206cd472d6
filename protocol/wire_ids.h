#pragma once
// The summary protocol's wire identifiers (docs/protocol.md). Never renumber:
// nodes of different builds read each other's messages by these values.

#include <cstdint>

namespace sumcache::protocol {

inline constexpr std::uint16_t kVersion = 1;     // what this code writes
inline constexpr std::uint16_t kMinVersion = 1;  // oldest it reads

enum class MessageKind : std::uint8_t { full = 1, delta = 2 };
enum class Compression : std::uint8_t { raw = 0, rice_gaps = 1 };

}  // namespace sumcache::protocol
