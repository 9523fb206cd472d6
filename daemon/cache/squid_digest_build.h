#pragma once
// This node's cache as a Squid Cache Digest (docs/interop.md, "sumcache as a
// Squid digest sibling"): a derived view, rebuilt from the store's keys; the
// counting filter stays the source of truth. Pure: no store, no clock.

#include <cstdint>
#include <span>
#include <string_view>

#include "protocol/squid_digest.h"

namespace sumcache::daemon {

// Squid's storeDigestCalcCap: one entry of capacity per stored entry, at least
// 1 + stored_bytes / 13 KiB (store_avg_object_size), at most what keeps the
// mask's bit count in an int. kMinSquidDigestCapacity is ours: an empty Squid
// digests its ~50 internal icons, and a mask of a few bytes would let a handful
// of keys set more than the 65% of bits after which a Squid refuses a digest.
inline constexpr std::uint32_t kMinSquidDigestCapacity = 64;
inline constexpr std::uint64_t kSquidAvgObjectBytes = 13 * 1024;
std::uint32_t squid_digest_capacity(std::uint64_t entries, std::uint64_t stored_bytes);

// The Squid store key of a cache key: our key is the URL Squid hashes for a
// GET ("scheme://host[:port]path[?query]", the default port left out, scheme
// and host lower-case), so it is hashed as it is.
protocol::SquidStoreKey squid_key_of(std::string_view cache_key);

// A digest of `keys` with squid_digest_capacity(keys.size(), stored_bytes).
// Should the mask come out more than 65% set (only for a few keys that
// collide), capacity is doubled until it is not: a Squid refuses such a
// digest outright.
protocol::SquidDigest build_squid_digest(std::span<const protocol::SquidStoreKey> keys,
                                         std::uint64_t stored_bytes);

}  // namespace sumcache::daemon
