#pragma once
// Decoding summary messages: every size is checked against its cap and the
// bytes present before anything is allocated, and nothing past the fixed
// header's sizes is trusted before the tag matches. The checks and the error
// each gives, in order: docs/protocol.md, "Decoding, in order".

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "filters/result.h"
#include "protocol/summary_message.h"

namespace sumcache::protocol {

struct DecodeLimits {
  std::uint64_t max_m = 1ULL << 34;
  std::uint32_t max_k = 32;
  std::size_t max_message_bytes = 64u << 20;
  // A delta of more changes costs more than a full summary of any realistic filter.
  std::uint64_t max_changes = 1ULL << 24;
  // Fingerprints in a set the receiver takes: a fingerprint_full's count, a
  // fingerprint_delta's set before and after (a slot of the receiver's
  // directory holds no more).
  std::uint64_t max_fingerprints = 1ULL << 26;
};

// The secret a node signs with; nullopt: unknown node.
using SecretLookup = std::function<std::optional<std::string>(std::string_view node_id)>;

// The error is a ProtocolErrc (protocol_error.h).
Result<SummaryMessage> decode(std::string_view bytes, const SecretLookup& secret_for,
                              const DecodeLimits& limits = {});

}  // namespace sumcache::protocol
