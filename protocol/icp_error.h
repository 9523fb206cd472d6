#pragma once
// Error codes of the ICP v2 codec (RFC 2186), with their std::error_category.

#include <system_error>

namespace sumcache::protocol {

enum class IcpErrc {
  ok = 0,
  truncated,            // shorter than the 20-byte header, or a QUERY without its requester address
  datagram_too_large,   // over kIcpMaxDatagram
  bad_version,          // not version 2
  length_mismatch,      // the header's message length differs from the datagram's size
  unknown_opcode,       // not an opcode of RFC 2186
  hit_obj_unsupported,  // ICP_OP_HIT_OBJ: only sent to a requester that asked for it; we never do
  url_unterminated,     // no NUL ends the URL
  url_too_long,         // the URL exceeds kIcpMaxUrl
  trailing_bytes,       // bytes after the URL's NUL
  invalid_url,          // encode: the URL holds a NUL of its own
  not_encodable,        // encode: an opcode this codec only decodes
};

const std::error_category& icp_category() noexcept;

inline std::error_code make_error_code(IcpErrc e) noexcept {
  return {static_cast<int>(e), icp_category()};
}

}  // namespace sumcache::protocol

template <>
struct std::is_error_code_enum<sumcache::protocol::IcpErrc> : std::true_type {};
