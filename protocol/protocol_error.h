#pragma once
// Error codes of the summary protocol, with their std::error_category. Each
// message reads as the reason in a log line about a rejected summary.

#include <system_error>

namespace sumcache::protocol {

enum class ProtocolErrc {
  ok = 0,
  truncated,            // fewer bytes than the header says
  bad_magic,            // not a summary message
  unsupported_version,  // needs a newer reader, or older than we read
  unknown_node,         // no secret for the sender's node id
  bad_tag,              // HMAC-SHA256 tag does not match: damaged or forged
  over_cap,             // a size exceeds the decoder's limit
  inconsistent_sizes,   // sizes disagree with each other or with the bytes present
  bad_encoding,         // a field or the payload is malformed
  unknown_hash,         // hash id not known to this build
  sequence_gap,         // a delta's base is newer than the state held: a delta was missed
  epoch_mismatch,       // a delta from another epoch than the state held (the sender restarted)
  params_mismatch,      // a delta's node, m, k or hash differ from the state held
  no_state,             // a delta arrived before any full summary
  stale_epoch,          // an epoch below the one held: a replay, refused (never a restart)
  invalid_summary,      // encode: the summary breaks a precondition (node id, params, changes)
  signing_failed,       // encode: the HMAC-SHA256 tag could not be computed
};

const std::error_category& protocol_category() noexcept;

inline std::error_code make_error_code(ProtocolErrc e) noexcept {
  return {static_cast<int>(e), protocol_category()};
}

}  // namespace sumcache::protocol

template <>
struct std::is_error_code_enum<sumcache::protocol::ProtocolErrc> : std::true_type {};
