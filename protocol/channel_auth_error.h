#pragma once
// Why a request or an answer on the peer channel failed its Sumcache-Channel-Auth
// header (docs/protocol.md, "Channel authentication"), with its std::error_category.
// Each message reads as the reason in a 401 and in the log line about it.

#include <cstddef>
#include <system_error>

namespace sumcache::protocol {

enum class ChannelAuthErrc {
  ok = 0,
  missing,          // no Sumcache-Channel-Auth header, or more than one
  malformed,        // the header breaks its grammar
  bad_mac,          // forged, or method, path, node, receiver, time, nonce or length changed
  wrong_receiver,   // signed for another node than this one
  length_mismatch,  // len= is not the request's Content-Length (or the answer's body)
  expired,          // t is more than the window before now, or at or below the peer's floor
  from_future,      // t is more than the window after now
  replayed,         // this nonce was seen already within the window
  other_request,    // an answer signed for another request's nonce: captured, played back
};

const std::error_category& channel_auth_category() noexcept;

inline std::error_code make_error_code(ChannelAuthErrc e) noexcept {
  return {static_cast<int>(e), channel_auth_category()};
}

}  // namespace sumcache::protocol

template <>
struct std::is_error_code_enum<sumcache::protocol::ChannelAuthErrc> : std::true_type {};
