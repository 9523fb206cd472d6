#pragma once
// Summary messages for the fuzz targets. A message is authenticated before any
// field past the fixed header is read (protocol/decode.h), and random bytes
// never carry a valid HMAC: the targets take a message without its tag and sign
// it, so that the fuzzer explores what a peer holding the secret can send.

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/decode.h"
#include "protocol/message_tag.h"

namespace sumcache::fuzz {

inline constexpr std::string_view kSecret = "fuzz-cluster-secret";

// Nodes named "node-*" are peers; any other is unknown (the unknown_node path).
inline std::optional<std::string> secret_for(std::string_view node_id) {
  if (node_id.starts_with("node-")) return std::string(kSecret);
  return std::nullopt;
}

inline std::string signed_message(std::string_view unsigned_bytes) {
  std::string message(unsigned_bytes);
  if (!protocol::append_tag(message, kSecret)) std::abort();
  return message;
}

// The daemon's limits (daemon/peer/summary_exchange.cc) but for m: the work per
// message grows with m (a full of m bits allocates and scans m bits), so 2^20
// keeps a run at thousands of executions per second. The checks are the same
// code whatever the cap; the daemon's cap is kMaxDirectoryBits (2^28).
inline protocol::DecodeLimits decode_limits() {
  protocol::DecodeLimits limits;
  limits.max_m = std::uint64_t{1} << 20;
  limits.max_message_bytes = 64u << 20;  // kMaxSummaryBytes
  return limits;
}

}  // namespace sumcache::fuzz
