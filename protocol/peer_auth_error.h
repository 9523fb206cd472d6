#pragma once
// Why an object request between peers was refused (docs/protocol.md, "Peer
// object requests"), with its std::error_category. Each message reads as the
// reason in a 403 and in the log line about it.

#include <cstddef>
#include <system_error>

namespace sumcache::protocol {

enum class PeerAuthErrc {
  ok = 0,
  missing,        // the peer marker without a Sumcache-Peer-Auth header
  malformed,      // the header breaks its grammar, or appears more than once
  unknown_node,   // the node id is not a configured peer
  bad_mac,        // the MAC does not match: forged, or method, target, time or node changed
  expired,        // t is more than the window before now: a replay, or a slow clock
  from_future,    // t is more than the window after now: a fast clock
  node_mismatch,  // the peer marker names another node than the header
  bad_method,     // peers ask for objects with GET or HEAD only
};

// Reasons from missing to bad_method: the size of a per-reason counter array.
inline constexpr std::size_t kPeerAuthReasons = 8;

const std::error_category& peer_auth_category() noexcept;

inline std::error_code make_error_code(PeerAuthErrc e) noexcept {
  return {static_cast<int>(e), peer_auth_category()};
}

// A short name for a metric label: "missing", "malformed", "unknown_node", "bad_mac",
// "expired", "from_future", "node_mismatch", "bad_method".
const char* label(PeerAuthErrc e) noexcept;

}  // namespace sumcache::protocol

template <>
struct std::is_error_code_enum<sumcache::protocol::PeerAuthErrc> : std::true_type {};
