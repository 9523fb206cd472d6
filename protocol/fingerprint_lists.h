#pragma once
// The terms every holder of a fingerprint message checks (docs/protocol.md,
// "Fingerprint summaries"): the encoder before writing, PeerSummary on
// hand-built messages. The decoder meets them by construction.

#include <cstdint>
#include <optional>
#include <span>

#include "filters/fingerprint_table.h"

namespace sumcache::protocol {

// Every value below `bound` and ascending: repeats allowed unless `distinct`.
bool sorted_below(std::span<const std::uint64_t> values, std::uint64_t bound, bool distinct);

// B = entries + removed - added: the size of the set a delta applies on, the
// set after it having `entries` elements; nullopt when that is negative (or
// past 2^64 - 1).
std::optional<std::uint64_t> fingerprint_base_size(std::uint64_t entries, std::uint64_t removed,
                                                   std::uint64_t added);

// A delta that a set of `entries` elements after it can come from: ranks
// distinct and below B, additions ascending and below `universe`.
bool valid_fingerprint_delta(const filters::FingerprintDelta& delta, std::uint64_t entries,
                             std::uint64_t universe);

}  // namespace sumcache::protocol
