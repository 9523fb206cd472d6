#pragma once
// Error codes of the invalidation messages (docs/protocol.md, "Invalidation
// messages"), with their std::error_category. Each message reads as the reason
// in a log line about a refused message.

#include <system_error>

namespace sumcache::protocol {

enum class InvalidationErrc {
  ok = 0,
  truncated,            // fewer bytes than the header says
  bad_magic,            // not an invalidation message
  unsupported_version,  // needs a newer reader, or older than we read
  unknown_node,         // no secret for the signer's node id
  bad_tag,              // HMAC-SHA256 tag does not match: damaged or forged
  over_cap,             // a size exceeds its bound
  inconsistent_sizes,   // sizes disagree with each other or with the bytes present
  bad_encoding,         // a field or an entry is malformed
  wrong_kind,           // an ack where invalidations were expected, or the other way round
  trailing_bytes,       // bytes after the last entry of the payload
  invalid_message,      // encode: the message breaks a rule of the format
  signing_failed,       // encode: the HMAC-SHA256 tag could not be computed
};

const std::error_category& invalidation_category() noexcept;

inline std::error_code make_error_code(InvalidationErrc e) noexcept {
  return {static_cast<int>(e), invalidation_category()};
}

}  // namespace sumcache::protocol

template <>
struct std::is_error_code_enum<sumcache::protocol::InvalidationErrc> : std::true_type {};
