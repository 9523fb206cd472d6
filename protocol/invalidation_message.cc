#include "protocol/invalidation_message.h"

#include <algorithm>
#include <limits>

#include "filters/byte_io.h"
#include "protocol/invalidation_header.h"
#include "protocol/message_tag.h"

namespace sumcache::protocol {
namespace {

constexpr std::uint64_t kMaxSequence = std::numeric_limits<std::uint64_t>::max();

std::error_code fail(InvalidationErrc e) { return make_error_code(e); }

bool known_kind(std::uint8_t kind) {
  return kind >= static_cast<std::uint8_t>(InvalidationKind::url) &&
         kind <= static_cast<std::uint8_t>(InvalidationKind::prefix);
}

// No space and no control byte: a cache key comes from a request target (RFC
// 9112 §3.2) and a tag is one space-separated item of a field value (RFC 9110
// §5.5); neither holds one, and a log line can show the value as it is.
bool valid_value(std::string_view value) {
  return std::all_of(value.begin(), value.end(), [](char c) {
    const auto b = static_cast<std::uint8_t>(c);
    return b >= 0x21 && b != 0x7F;
  });
}

// first_seq >= 1 and first_seq + count - 1 representable; count >= 1.
bool valid_sequences(std::uint64_t first_seq, std::uint64_t count) {
  return first_seq != 0 && count != 0 && first_seq <= kMaxSequence - (count - 1);
}

std::uint64_t le_at(std::string_view bytes, std::size_t offset, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value |= std::uint64_t{static_cast<std::uint8_t>(bytes[offset + i])} << (8 * i);
  }
  return value;
}

Result<std::string> seal(InvalidationHeader h, std::string_view node_id, std::string_view payload,
                         std::string_view secret) {
  h.node_id_bytes = static_cast<std::uint8_t>(node_id.size());
  h.payload_bytes = static_cast<std::uint32_t>(payload.size());
  std::string out;
  out.reserve(kInvalidationHeaderBytes + node_id.size() + payload.size() + kTagBytes);
  append_invalidation_header(out, h);
  out += node_id;
  out += payload;
  if (!append_tag(out, secret)) return fail(InvalidationErrc::signing_failed);
  return out;
}

// A message cut into its parts after the structural checks (steps 1 to 5).
struct Frame {
  InvalidationHeader header;
  std::string_view node_id;
  std::string_view payload;
  std::string_view signed_bytes;
  std::string_view tag;
};

Result<Frame> read_frame(std::string_view bytes) {
  if (bytes.size() > kMaxInvalidationMessageBytes) return fail(InvalidationErrc::over_cap);
  if (bytes.size() < 4) return fail(InvalidationErrc::truncated);
  if (le_at(bytes, 0, 4) != kInvalidationMagic) return fail(InvalidationErrc::bad_magic);
  if (bytes.size() < 8) return fail(InvalidationErrc::truncated);
  const auto version = le_at(bytes, 4, 2);
  const auto min_version = le_at(bytes, 6, 2);
  if (min_version > kInvalidationVersion || version < kInvalidationMinVersion) {
    return fail(InvalidationErrc::unsupported_version);
  }
  if (min_version > version) return fail(InvalidationErrc::bad_encoding);
  if (bytes.size() < kInvalidationHeaderBytes) return fail(InvalidationErrc::truncated);

  Frame f;
  f.header = read_invalidation_header(bytes);
  const InvalidationHeader& h = f.header;
  if (h.header_bytes < kInvalidationHeaderBytes) return fail(InvalidationErrc::inconsistent_sizes);
  if (h.header_bytes > kMaxHeaderBytes) return fail(InvalidationErrc::over_cap);
  if (h.node_id_bytes == 0 || h.node_id_bytes > kMaxNodeIdBytes) {
    return fail(InvalidationErrc::bad_encoding);
  }
  if (h.payload_bytes > kMaxInvalidationPayloadBytes) return fail(InvalidationErrc::over_cap);
  // Each term is capped above, so the sum cannot overflow.
  const std::size_t total =
      std::size_t{h.header_bytes} + h.node_id_bytes + h.payload_bytes + kTagBytes;
  if (bytes.size() < total) return fail(InvalidationErrc::truncated);
  if (bytes.size() > total) return fail(InvalidationErrc::inconsistent_sizes);
  f.node_id = bytes.substr(h.header_bytes, h.node_id_bytes);
  f.payload = bytes.substr(h.header_bytes + h.node_id_bytes, h.payload_bytes);
  f.signed_bytes = bytes.substr(0, bytes.size() - kTagBytes);
  f.tag = bytes.substr(bytes.size() - kTagBytes);
  return f;
}

// Steps 1 to 7: the frame of an authenticated message of the kind wanted.
Result<Frame> open(std::string_view bytes, const SecretLookup& secret_for,
                   InvalidationMessageKind want) {
  auto frame = read_frame(bytes);
  if (!frame) return frame.error();
  if (!valid_node_id(frame->node_id)) return fail(InvalidationErrc::bad_encoding);
  const auto secret = secret_for ? secret_for(frame->node_id) : std::nullopt;
  if (!secret) return fail(InvalidationErrc::unknown_node);
  if (!tag_matches(frame->signed_bytes, frame->tag, *secret)) {
    return fail(InvalidationErrc::bad_tag);
  }
  const std::uint8_t kind = frame->header.kind;
  if (kind != static_cast<std::uint8_t>(InvalidationMessageKind::invalidations) &&
      kind != static_cast<std::uint8_t>(InvalidationMessageKind::ack)) {
    return fail(InvalidationErrc::bad_encoding);
  }
  if (kind != static_cast<std::uint8_t>(want)) return fail(InvalidationErrc::wrong_kind);
  return frame;
}

// Step 9: the entries, each against the payload left and its kind's cap.
Result<std::vector<Invalidation>> read_entries(std::string_view payload, std::size_t count) {
  std::vector<Invalidation> entries;
  entries.reserve(count);  // count <= kMaxInvalidationEntries, checked by the caller
  std::size_t pos = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (payload.size() - pos < kInvalidationEntryHeaderBytes) {
      return fail(InvalidationErrc::inconsistent_sizes);
    }
    const auto kind = static_cast<std::uint8_t>(payload[pos]);
    const std::uint64_t time_ms = le_at(payload, pos + 1, 8);
    const std::size_t length = le_at(payload, pos + 9, 2);
    pos += kInvalidationEntryHeaderBytes;
    if (!known_kind(kind) || length == 0) return fail(InvalidationErrc::bad_encoding);
    if (length > max_value_bytes(static_cast<InvalidationKind>(kind))) {
      return fail(InvalidationErrc::over_cap);
    }
    if (payload.size() - pos < length) return fail(InvalidationErrc::inconsistent_sizes);
    const std::string_view value = payload.substr(pos, length);
    if (!valid_value(value)) return fail(InvalidationErrc::bad_encoding);
    pos += length;
    entries.push_back({static_cast<InvalidationKind>(kind), time_ms, std::string(value)});
  }
  if (pos != payload.size()) return fail(InvalidationErrc::trailing_bytes);
  return entries;
}

}  // namespace

std::size_t max_value_bytes(InvalidationKind kind) {
  return kind == InvalidationKind::tag ? kMaxInvalidationTagBytes : kMaxInvalidationKeyBytes;
}

bool valid_invalidation(const Invalidation& invalidation) {
  return known_kind(static_cast<std::uint8_t>(invalidation.kind)) && !invalidation.value.empty() &&
         invalidation.value.size() <= max_value_bytes(invalidation.kind) &&
         valid_value(invalidation.value);
}

std::size_t invalidation_entry_bytes(const Invalidation& invalidation) {
  return kInvalidationEntryHeaderBytes + invalidation.value.size();
}

std::error_code check_invalidations(const InvalidationBatch& batch) {
  if (!valid_node_id(batch.node_id) || batch.entries.size() > kMaxInvalidationEntries ||
      !valid_sequences(batch.first_seq, batch.entries.size())) {
    return InvalidationErrc::invalid_message;
  }
  std::size_t payload = 0;
  for (const auto& entry : batch.entries) {
    if (!valid_invalidation(entry)) return InvalidationErrc::invalid_message;
    payload += invalidation_entry_bytes(entry);
  }
  if (payload > kMaxInvalidationPayloadBytes) return InvalidationErrc::invalid_message;
  return {};
}

std::error_code check_invalidation_ack(const InvalidationAck& ack) {
  if (!valid_node_id(ack.node_id) || !valid_node_id(ack.acked_node)) {
    return InvalidationErrc::invalid_message;
  }
  return {};
}

Result<std::string> encode_invalidations(const InvalidationBatch& batch, std::string_view secret) {
  if (auto ec = check_invalidations(batch)) return ec;
  InvalidationHeader h;
  h.kind = static_cast<std::uint8_t>(InvalidationMessageKind::invalidations);
  h.count = static_cast<std::uint16_t>(batch.entries.size());
  h.flags = batch.missed_until_ms ? kFlagMissed : 0;
  h.epoch = batch.epoch;
  h.sequence = batch.first_seq;
  h.missed_until_ms = batch.missed_until_ms.value_or(0);
  std::string payload;
  for (const auto& entry : batch.entries) {
    filters::put_le(payload, static_cast<std::uint8_t>(entry.kind));
    filters::put_le(payload, entry.time_ms);
    filters::put_le(payload, static_cast<std::uint16_t>(entry.value.size()));
    payload += entry.value;
  }
  return seal(h, batch.node_id, payload, secret);
}

Result<std::string> encode_invalidation_ack(const InvalidationAck& ack, std::string_view secret) {
  if (auto ec = check_invalidation_ack(ack)) return ec;
  InvalidationHeader h;
  h.kind = static_cast<std::uint8_t>(InvalidationMessageKind::ack);
  h.epoch = ack.epoch;
  h.sequence = ack.acked_through;
  return seal(h, ack.node_id, ack.acked_node, secret);
}

Result<InvalidationBatch> decode_invalidations(std::string_view bytes,
                                               const SecretLookup& secret_for) {
  auto frame = open(bytes, secret_for, InvalidationMessageKind::invalidations);
  if (!frame) return frame.error();
  const InvalidationHeader& h = frame->header;
  const bool missed = (h.flags & kFlagMissed) != 0;
  if ((h.flags & ~kFlagMissed) != 0 || (!missed && h.missed_until_ms != 0) ||
      !valid_sequences(h.sequence, h.count)) {
    return fail(InvalidationErrc::bad_encoding);
  }
  if (h.count > kMaxInvalidationEntries) return fail(InvalidationErrc::over_cap);
  if (frame->payload.size() < std::size_t{h.count} * kInvalidationEntryHeaderBytes) {
    return fail(InvalidationErrc::inconsistent_sizes);
  }
  auto entries = read_entries(frame->payload, h.count);
  if (!entries) return entries.error();
  InvalidationBatch batch;
  batch.node_id = std::string(frame->node_id);
  batch.epoch = h.epoch;
  batch.first_seq = h.sequence;
  if (missed) batch.missed_until_ms = h.missed_until_ms;
  batch.entries = std::move(entries).value();
  return batch;
}

Result<InvalidationAck> decode_invalidation_ack(std::string_view bytes,
                                                const SecretLookup& secret_for) {
  auto frame = open(bytes, secret_for, InvalidationMessageKind::ack);
  if (!frame) return frame.error();
  const InvalidationHeader& h = frame->header;
  if (h.count != 0 || h.flags != 0 || h.missed_until_ms != 0 || !valid_node_id(frame->payload)) {
    return fail(InvalidationErrc::bad_encoding);
  }
  return InvalidationAck{std::string(frame->node_id), std::string(frame->payload), h.epoch,
                         h.sequence};
}

}  // namespace sumcache::protocol
