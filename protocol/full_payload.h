#pragma once
// The payload of a full summary: the raw bit array, or the Rice-coded gaps
// between the positions of its rarer bit value, whichever is smaller
// (docs/protocol.md, "Payloads").

#include <string_view>

#include "filters/bloom_filter.h"
#include "filters/result.h"
#include "protocol/encoded_payload.h"
#include "protocol/wire_header.h"

namespace sumcache::protocol {

EncodedPayload encode_full_payload(const filters::BloomFilter& bits);

// `header`'s m, k, hash and compression are already checked; this checks the
// payload count and length against m and each other, then decodes.
Result<filters::BloomFilter> decode_full_payload(const WireHeader& header,
                                                 const filters::Hasher& hasher,
                                                 std::string_view payload);

}  // namespace sumcache::protocol
