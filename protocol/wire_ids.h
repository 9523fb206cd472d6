#pragma once
// The summary protocol's wire identifiers (docs/protocol.md). Never renumber:
// nodes of different builds read each other's messages by these values.

#include <cstdint>

namespace sumcache::protocol {

inline constexpr std::uint16_t kVersion = 2;     // the newest format this code reads and writes
inline constexpr std::uint16_t kMinVersion = 1;  // oldest it reads
// What each kind is written as (docs/protocol.md, "Versions"): the Bloom kinds
// as version 1, min_version 1, readable by every build; the fingerprint kinds
// as version 2, min_version 2, so a version-1 reader refuses them with
// unsupported_version before it reads further. The layout is the same.
inline constexpr std::uint16_t kBloomVersion = 1;
inline constexpr std::uint16_t kFingerprintVersion = 2;

// full and delta carry a Bloom filter's bits; the fingerprint kinds carry a
// fingerprint set (filters/fingerprint.h): the whole set, or the ranks removed
// from the set the receiver holds and the fingerprints added. 3 and 4 are the
// invalidation kinds below.
enum class MessageKind : std::uint8_t {
  full = 1,
  delta = 2,
  fingerprint_full = 5,
  fingerprint_delta = 6,
};
enum class Compression : std::uint8_t { raw = 0, rice_gaps = 1 };

// Invalidation messages (docs/protocol.md, "Invalidation messages"), a format of
// their own under the magic "SCIV", versioned apart from summaries. Their kinds
// follow the summary kinds, so a kind value names one message between nodes.
inline constexpr std::uint16_t kInvalidationVersion = 1;
inline constexpr std::uint16_t kInvalidationMinVersion = 1;
enum class InvalidationMessageKind : std::uint8_t { invalidations = 3, ack = 4 };
// What one invalidation names: an exact cache key, a Surrogate-Key tag, a cache-key prefix.
enum class InvalidationKind : std::uint8_t { url = 1, tag = 2, prefix = 3 };

}  // namespace sumcache::protocol
