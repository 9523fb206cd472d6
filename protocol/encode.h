#pragma once
// Encoding summary messages (layout: docs/protocol.md). Every message is
// signed with HMAC-SHA256 under `secret`, the cluster secret from the config.
//
// Both return the message, or invalid_summary when the input breaks a precondition (check_*
// say which) and signing_failed when the tag cannot be computed: a caller cannot send an
// empty body by mistake.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "filters/bit_change.h"
#include "filters/bloom_filter.h"
#include "filters/fingerprint_table.h"
#include "filters/result.h"
#include "protocol/summary_message.h"

namespace sumcache::protocol {

// Full: raw or Rice-coded set positions, whichever is smaller. `bits` must
// have info.params and info.hasher.
Result<std::string> encode_full(const SummaryInfo& info, const filters::BloomFilter& bits,
                                std::string_view secret);
// Requires positions strictly ascending and below m, and base_sequence < info.sequence.
Result<std::string> encode_delta(const SummaryInfo& info, std::uint64_t base_sequence,
                                 std::span<const filters::BitChange> changes,
                                 std::string_view secret);

// A fingerprint set (filters/fingerprint_table.h): `sorted` ascending, repeats
// kept, each below info.params.m (the universe), info.params.k = 1, and
// info.entries = sorted.size().
Result<std::string> encode_fingerprint_full(const SummaryInfo& info,
                                            std::span<const std::uint64_t> sorted,
                                            std::string_view secret);
// delta.removed_ranks ascending, distinct and below the base set's size
// (info.entries + removed - added); delta.added ascending and below the
// universe; base_sequence < info.sequence.
Result<std::string> encode_fingerprint_delta(const SummaryInfo& info, std::uint64_t base_sequence,
                                             const filters::FingerprintDelta& delta,
                                             std::string_view secret);

// invalid_summary unless the node id is valid (node_id.h) and m, k are valid.
std::error_code check_summary(const SummaryInfo& info);
// check_summary, then invalid_summary unless the changes and sequences meet encode_delta's terms.
std::error_code check_delta(const SummaryInfo& info, std::uint64_t base_sequence,
                            std::span<const filters::BitChange> changes);
// check_summary, then invalid_summary unless k = 1, entries = sorted.size()
// and `sorted` is ascending and below m.
std::error_code check_fingerprint_full(const SummaryInfo& info,
                                       std::span<const std::uint64_t> sorted);
// check_summary, then invalid_summary unless k = 1, base_sequence < sequence,
// and the delta meets encode_fingerprint_delta's terms.
std::error_code check_fingerprint_delta(const SummaryInfo& info, std::uint64_t base_sequence,
                                        const filters::FingerprintDelta& delta);

}  // namespace sumcache::protocol
