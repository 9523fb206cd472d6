#pragma once
// The payload of a delta: per change, in ascending position, the Rice-coded
// gap from the previous one, then one bit, the new value (docs/protocol.md).

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "filters/bit_change.h"
#include "filters/result.h"
#include "protocol/encoded_payload.h"
#include "protocol/wire_header.h"

namespace sumcache::protocol {

// Requires strictly ascending positions (the encoder checks before calling).
EncodedPayload encode_delta_payload(std::span<const filters::BitChange> changes);

// `header`'s m is already checked; this checks the payload count against
// max_changes, m and the length before allocating, then decodes.
Result<std::vector<filters::BitChange>> decode_delta_payload(const WireHeader& header,
                                                             std::uint64_t max_changes,
                                                             std::string_view payload);

}  // namespace sumcache::protocol
