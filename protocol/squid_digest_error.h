#pragma once
// Error codes of the Squid cache digest codec (docs/protocol.md, "Squid cache
// digests"), with their std::error_category. Each refusal is one Squid's own
// receiver (peer_digest.cc, peerDigestSetCBlock and peerDigestUseful) makes too.

#include <system_error>

namespace sumcache::protocol {

enum class SquidDigestErrc {
  ok = 0,
  // fewer than 128 header bytes, or fewer mask bytes than mask_size
  truncated,
  // more bytes than 128 + mask_size
  trailing_bytes,
  // required > 5 (ours), or current < 3 (the least we read)
  version_unsupported,
  // required > current, or a zero/negative capacity, mask_size, bits_per_entry or hash
  // count (Squid's checks), or a negative required, count or del_count (ours)
  inconsistent_header,
  // mask_size != ceil(capacity * bits_per_entry / 8)
  mask_size_mismatch,
  // hash_func_count != 4
  hash_count_unsupported,
  // mask_size over the receiver's limit (never above kSquidDigestMaxMaskBytes)
  too_large,
  // more than 65% of the mask's bits set: the digest claims (nearly) everything
  too_many_bits_set,
};

const std::error_category& squid_digest_category() noexcept;

inline std::error_code make_error_code(SquidDigestErrc e) noexcept {
  return {static_cast<int>(e), squid_digest_category()};
}

}  // namespace sumcache::protocol

template <>
struct std::is_error_code_enum<sumcache::protocol::SquidDigestErrc> : std::true_type {};
