#include "daemon/cache/squid_digest_build.h"

#include <algorithm>
#include <climits>

namespace sumcache::daemon {

std::uint32_t squid_digest_capacity(std::uint64_t entries, std::uint64_t stored_bytes) {
  // Squid's bound (bug 4534): capacity * bits_per_entry + 7 must stay below INT_MAX.
  constexpr std::uint64_t kMax = (INT_MAX - 8) / protocol::kSquidDigestDefaultBitsPerEntry;
  const std::uint64_t low = 1 + stored_bytes / kSquidAvgObjectBytes;
  const std::uint64_t cap = std::max({entries, low, std::uint64_t{kMinSquidDigestCapacity}});
  return static_cast<std::uint32_t>(std::min(cap, kMax));
}

protocol::SquidStoreKey squid_key_of(std::string_view cache_key) {
  return protocol::squid_store_key(cache_key);
}

protocol::SquidDigest build_squid_digest(std::span<const protocol::SquidStoreKey> keys,
                                         std::uint64_t stored_bytes) {
  constexpr std::uint64_t kMax = (INT_MAX - 8) / protocol::kSquidDigestDefaultBitsPerEntry;
  std::uint64_t capacity = squid_digest_capacity(keys.size(), stored_bytes);
  for (;;) {
    protocol::SquidDigest digest(static_cast<std::uint32_t>(capacity));
    for (const auto& key : keys) digest.add(key);
    if (!digest.too_many_bits_set() || capacity >= kMax) {
      return digest;
    }
    capacity = std::min(capacity * 2, kMax);
  }
}

}  // namespace sumcache::daemon
