#include "protocol/message_bounds.h"

#include <algorithm>
#include <bit>

#include "protocol/fingerprint_payload.h"
#include "protocol/wire_header.h"

namespace sumcache::protocol {
namespace {

std::uint64_t bytes_for(std::uint64_t bits) { return bits / 8 + (bits % 8 != 0); }

// ceil(log2(ceil(w / x))) for x > 0.
std::uint64_t log2_ceil_ratio(std::uint64_t w, std::uint64_t x) {
  const std::uint64_t ratio = w / x + (w % x != 0);
  return ratio == 0 ? 0 : std::bit_width(ratio - 1);
}

}  // namespace

std::uint64_t full_payload_bound(std::uint64_t m) { return bytes_for(m); }

std::uint64_t delta_payload_bound(std::uint64_t m, std::uint64_t max_changes) {
  const std::uint64_t c = std::min(m, max_changes);
  if (c == 0) return 0;
  return bytes_for(c * (log2_ceil_ratio(m, c) + 6));
}

std::uint64_t fingerprint_list_bits(std::uint64_t x, std::uint64_t w) {
  return x == 0 ? 0 : x * (log2_ceil_ratio(w, x) + 4);
}

std::uint64_t fingerprint_full_payload_bound(std::uint64_t universe,
                                             std::uint64_t max_fingerprints) {
  return bytes_for(fingerprint_list_bits(max_fingerprints, universe));
}

std::uint64_t fingerprint_delta_payload_bound(std::uint64_t universe,
                                              std::uint64_t max_fingerprints,
                                              std::uint64_t max_changes) {
  const std::uint64_t ranks =
      fingerprint_list_bits(std::min(max_changes, max_fingerprints), max_fingerprints);
  return kFingerprintDeltaPrefixBytes +
         bytes_for(ranks + fingerprint_list_bits(max_changes, universe));
}

std::uint64_t message_overhead_bound(std::size_t node_id_bytes) {
  return kMaxHeaderBytes + node_id_bytes + kTagBytes;
}

std::uint64_t message_bound(std::uint64_t max_m, std::uint64_t max_changes,
                            std::size_t node_id_bytes) {
  return message_overhead_bound(node_id_bytes) +
         std::max(full_payload_bound(max_m), delta_payload_bound(max_m, max_changes));
}

std::uint64_t fingerprint_message_bound(std::uint64_t max_universe, std::uint64_t max_fingerprints,
                                        std::uint64_t max_changes, std::size_t node_id_bytes) {
  return message_overhead_bound(node_id_bytes) +
         std::max(fingerprint_full_payload_bound(max_universe, max_fingerprints),
                  fingerprint_delta_payload_bound(max_universe, max_fingerprints, max_changes));
}

}  // namespace sumcache::protocol
