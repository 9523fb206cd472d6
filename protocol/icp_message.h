#pragma once
// ICP v2 messages (RFC 2186): a 20-byte header in network byte order, then the
// payload: for QUERY the requester host address and a NUL-terminated URL, for
// every other opcode the NUL-terminated URL alone. Pure encode/decode, no sockets.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <system_error>
#include <vector>

#include "filters/result.h"
#include "protocol/icp_error.h"

namespace sumcache::protocol {

enum class IcpOpcode : std::uint8_t {
  query = 1,
  hit = 2,
  miss = 3,
  err = 4,
  secho = 10,  // a query sent to an origin's UDP echo port
  decho = 11,  // a query sent to a neighbour's UDP echo port (a cache that speaks no ICP)
  miss_nofetch = 21,
  denied = 22,
  hit_obj = 23,  // recognised only to be refused: decode() reports hit_obj_unsupported
};

inline constexpr std::uint8_t kIcpVersion = 2;
inline constexpr std::size_t kIcpHeaderSize = 20;
// RFC 2186: ICP messages must not exceed 16,384 octets.
inline constexpr std::size_t kIcpMaxDatagram = 16384;
// Squid's MAX_URL; an HTTP cache key longer than this is not worth a query.
inline constexpr std::size_t kIcpMaxUrl = 8192;
// Option flags of RFC 2186; we never set them, and answer a query that does as if it had not.
inline constexpr std::uint32_t kIcpFlagHitObj = 0x80000000;
inline constexpr std::uint32_t kIcpFlagSrcRtt = 0x40000000;

struct IcpMessage {
  IcpOpcode opcode = IcpOpcode::query;
  std::uint32_t request_number = 0;  // a reply copies the query's
  std::uint32_t options = 0;
  std::uint32_t option_data = 0;
  std::uint32_t sender_address = 0;     // IPv4, host order; RFC 2186 calls it unreliable: we send 0
  std::uint32_t requester_address = 0;  // QUERY only; always 0 in practice
  // Without its NUL. decode(): views the datagram; encode(): the caller's string.
  std::string_view url;
};

// The message's size on the wire; every opcode with a URL up to kIcpMaxUrl fits in a datagram.
std::size_t icp_encoded_size(const IcpMessage& message);
// Replaces `out` with the datagram (its capacity is reused).
std::error_code encode_icp(const IcpMessage& message, std::vector<std::uint8_t>& out);
Result<std::vector<std::uint8_t>> encode_icp(const IcpMessage& message);
// Checks every field against the datagram; the result's url views `datagram`.
Result<IcpMessage> decode_icp(std::span<const std::uint8_t> datagram);

// Whether `opcode` answers a QUERY (or is an echo of one): what a requester accepts as a reply.
bool is_icp_reply(IcpOpcode opcode);
const char* to_string(IcpOpcode opcode);

}  // namespace sumcache::protocol
