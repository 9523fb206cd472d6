#pragma once
// Network byte order (big-endian) fields at fixed offsets, for the formats
// that are Squid's or RFC 2186's rather than ours (ICP, Squid cache digests).
// Byte by byte: never a memcpy of a struct, whatever the host's byte order.

#include <cstdint>

namespace sumcache::protocol {

inline std::uint16_t get_be16(const std::uint8_t* in) {
  return static_cast<std::uint16_t>((in[0] << 8) | in[1]);
}

inline std::uint32_t get_be32(const std::uint8_t* in) {
  std::uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value = (value << 8) | in[i];
  return value;
}

// Byte: std::uint8_t for a byte buffer, char for a message built in a string.
template <class Byte>
void put_be16(Byte* out, std::uint16_t value) {
  out[0] = static_cast<Byte>(value >> 8);
  out[1] = static_cast<Byte>(value);
}

template <class Byte>
void put_be32(Byte* out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<Byte>(value >> (24 - 8 * i));
}

}  // namespace sumcache::protocol
