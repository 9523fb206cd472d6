#pragma once
// Invalidation messages between nodes: a batch of sequenced purges from the node
// where they happened, and the receiver's acknowledgement (docs/protocol.md,
// "Invalidation messages"). Pure encode and decode, HMAC-SHA256-tagged with the
// cluster secret like summaries; every size is checked against its bound and
// the bytes present before anything is allocated, and nothing past the fixed
// header's sizes is read before the tag matches.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "filters/result.h"
#include "protocol/decode.h"
#include "protocol/invalidation_error.h"
#include "protocol/node_id.h"
#include "protocol/wire_header.h"
#include "protocol/wire_ids.h"

namespace sumcache::protocol {

// Bounds of the format, checked by encoder and decoder alike.
inline constexpr std::size_t kMaxInvalidationEntries = 256;
inline constexpr std::size_t kMaxInvalidationPayloadBytes = 256 * 1024;
inline constexpr std::size_t kMaxInvalidationKeyBytes = 8192;  // url and prefix
inline constexpr std::size_t kMaxInvalidationTagBytes = 1024;
inline constexpr std::size_t kInvalidationEntryHeaderBytes = 11;  // kind, time_ms, value length
// The largest message a conforming sender can write (a later version's header
// included), so that a receiver can refuse a larger body before reading it.
inline constexpr std::size_t kMaxInvalidationMessageBytes =
    kMaxHeaderBytes + kMaxNodeIdBytes + kMaxInvalidationPayloadBytes + kTagBytes;

struct Invalidation {
  InvalidationKind kind = InvalidationKind::url;
  std::uint64_t time_ms = 0;  // the purge's wall-clock time on its node, ms since the Unix epoch
  std::string value;          // the cache key, tag or prefix
  friend bool operator==(const Invalidation&, const Invalidation&) = default;
};

struct InvalidationBatch {
  std::string node_id;          // the sender, where the purges happened; signs the message
  std::uint64_t epoch = 0;      // the sender's epoch (the one its summaries carry)
  std::uint64_t first_seq = 1;  // entries[i] has sequence first_seq + i
  // Set: the missed flag. The receiver's next sequence is no longer held; no
  // dropped invalidation has a purge time after this.
  std::optional<std::uint64_t> missed_until_ms;
  std::vector<Invalidation> entries;  // 1..kMaxInvalidationEntries
  std::uint64_t last_seq() const { return first_seq + entries.size() - 1; }  // requires entries
  friend bool operator==(const InvalidationBatch&, const InvalidationBatch&) = default;
};

struct InvalidationAck {
  std::string node_id;              // the acknowledging node; signs the ack
  std::string acked_node;           // the sender whose invalidations it acknowledges
  std::uint64_t epoch = 0;          // the acknowledged sender's epoch
  std::uint64_t acked_through = 0;  // every sequence up to it applied; 0: none
  friend bool operator==(const InvalidationAck&, const InvalidationAck&) = default;
};

// The longest value of a kind: kMaxInvalidationKeyBytes, or kMaxInvalidationTagBytes for a tag.
std::size_t max_value_bytes(InvalidationKind kind);
// A known kind and a value of 1..max_value_bytes bytes, each 0x21-0x7E or 0x80-0xFF.
bool valid_invalidation(const Invalidation& invalidation);
// What an entry takes in the payload: kInvalidationEntryHeaderBytes + its value.
std::size_t invalidation_entry_bytes(const Invalidation& invalidation);

// invalid_message unless the node id is valid, there are 1..256 valid entries
// within kMaxInvalidationPayloadBytes, and first_seq >= 1 with last_seq() < 2^64.
std::error_code check_invalidations(const InvalidationBatch& batch);
// invalid_message unless both node ids are valid.
std::error_code check_invalidation_ack(const InvalidationAck& ack);

// Both return the message, or invalid_message when check_* refuses the input and
// signing_failed when the tag cannot be computed.
Result<std::string> encode_invalidations(const InvalidationBatch& batch, std::string_view secret);
Result<std::string> encode_invalidation_ack(const InvalidationAck& ack, std::string_view secret);

// The error is an InvalidationErrc; the checks and their order: docs/protocol.md.
Result<InvalidationBatch> decode_invalidations(std::string_view bytes,
                                               const SecretLookup& secret_for);
Result<InvalidationAck> decode_invalidation_ack(std::string_view bytes,
                                                const SecretLookup& secret_for);

}  // namespace sumcache::protocol
