#include "protocol/message_bounds.h"

#include <algorithm>
#include <bit>

#include "protocol/wire_header.h"

namespace sumcache::protocol {

std::uint64_t full_payload_bound(std::uint64_t m) { return m / 8 + (m % 8 != 0); }

std::uint64_t delta_payload_bound(std::uint64_t m, std::uint64_t max_changes) {
  const std::uint64_t c = std::min(m, max_changes);
  if (c == 0) return 0;
  const std::uint64_t ratio = m / c + (m % c != 0);  // ceil(m / c) >= 1
  const std::uint64_t log2_ceil = std::bit_width(ratio - 1);
  const std::uint64_t bits = c * (log2_ceil + 6);
  return bits / 8 + (bits % 8 != 0);
}

std::uint64_t message_overhead_bound(std::size_t node_id_bytes) {
  return kMaxHeaderBytes + node_id_bytes + kTagBytes;
}

std::uint64_t message_bound(std::uint64_t max_m, std::uint64_t max_changes,
                            std::size_t node_id_bytes) {
  return message_overhead_bound(node_id_bytes) +
         std::max(full_payload_bound(max_m), delta_payload_bound(max_m, max_changes));
}

}  // namespace sumcache::protocol
