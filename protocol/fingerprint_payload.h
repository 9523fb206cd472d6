#pragma once
// The payloads of the fingerprint kinds (docs/protocol.md, "Payloads"):
// fingerprint_full, the set's fingerprint gaps Rice coded; fingerprint_delta,
// a 9-byte prefix (the number of removed ranks, their Rice parameter), then
// the removed ranks' gaps and the added fingerprints' gaps in one bit stream.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "filters/fingerprint_table.h"
#include "filters/result.h"
#include "protocol/encoded_payload.h"
#include "protocol/wire_header.h"

namespace sumcache::protocol {

// fingerprint_delta's prefix: the removed count (u64), the ranks' parameter (u8).
inline constexpr std::size_t kFingerprintDeltaPrefixBytes = 9;

// Requires `sorted` ascending (repeats allowed); the encoder checks first.
EncodedPayload encode_fingerprint_full_payload(std::span<const std::uint64_t> sorted);
// Requires removed_ranks strictly ascending and added ascending.
EncodedPayload encode_fingerprint_delta_payload(const filters::FingerprintDelta& delta);

// `header`'s kind, m (the universe), k and compression are already checked;
// these check the counts against their caps, entries and the bytes present
// before allocating (step 8), then decode (step 9).
Result<std::vector<std::uint64_t>> decode_fingerprint_full_payload(const WireHeader& header,
                                                                   std::uint64_t max_fingerprints,
                                                                   std::string_view payload);
Result<filters::FingerprintDelta> decode_fingerprint_delta_payload(const WireHeader& header,
                                                                   std::uint64_t max_fingerprints,
                                                                   std::uint64_t max_changes,
                                                                   std::string_view payload);

}  // namespace sumcache::protocol
