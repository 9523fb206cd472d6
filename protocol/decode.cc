#include "protocol/decode.h"

#include "filters/hashing.h"
#include "protocol/delta_payload.h"
#include "protocol/fingerprint_payload.h"
#include "protocol/full_payload.h"
#include "protocol/message_tag.h"
#include "protocol/node_id.h"
#include "protocol/protocol_error.h"
#include "protocol/wire_header.h"

namespace sumcache::protocol {
namespace {

std::error_code fail(ProtocolErrc e) { return make_error_code(e); }

// A message cut into its parts after the structural checks (steps 1 to 5).
struct Frame {
  WireHeader header;
  std::string_view node_id;
  std::string_view payload;
  std::string_view signed_bytes;
  std::string_view tag;
};

std::uint64_t le_at(std::string_view bytes, std::size_t offset, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value |= std::uint64_t{static_cast<std::uint8_t>(bytes[offset + i])} << (8 * i);
  }
  return value;
}

Result<Frame> read_frame(std::string_view bytes, const DecodeLimits& limits) {
  if (bytes.size() > limits.max_message_bytes) return fail(ProtocolErrc::over_cap);
  if (bytes.size() < 4) return fail(ProtocolErrc::truncated);
  if (le_at(bytes, 0, 4) != kMagic) return fail(ProtocolErrc::bad_magic);
  if (bytes.size() < 8) return fail(ProtocolErrc::truncated);
  const auto version = le_at(bytes, 4, 2);
  const auto min_version = le_at(bytes, 6, 2);
  if (min_version > kVersion || version < kMinVersion) {
    return fail(ProtocolErrc::unsupported_version);
  }
  if (min_version > version) return fail(ProtocolErrc::bad_encoding);
  if (bytes.size() < kHeaderBytes) return fail(ProtocolErrc::truncated);

  Frame f;
  f.header = read_header(bytes);
  const WireHeader& h = f.header;
  if (h.header_bytes < kHeaderBytes) return fail(ProtocolErrc::inconsistent_sizes);
  if (h.header_bytes > kMaxHeaderBytes) return fail(ProtocolErrc::over_cap);
  if (h.node_id_bytes == 0 || h.node_id_bytes > kMaxNodeIdBytes) {
    return fail(ProtocolErrc::bad_encoding);
  }
  if (h.payload_bytes > limits.max_message_bytes) return fail(ProtocolErrc::over_cap);
  // Each term is capped above, so the sum cannot overflow.
  const std::uint64_t total = h.header_bytes + h.node_id_bytes + h.payload_bytes + kTagBytes;
  if (bytes.size() < total) return fail(ProtocolErrc::truncated);
  if (bytes.size() > total) return fail(ProtocolErrc::inconsistent_sizes);
  f.node_id = bytes.substr(h.header_bytes, h.node_id_bytes);
  f.payload = bytes.substr(h.header_bytes + h.node_id_bytes, h.payload_bytes);
  f.signed_bytes = bytes.substr(0, bytes.size() - kTagBytes);
  f.tag = bytes.substr(bytes.size() - kTagBytes);
  return f;
}

std::error_code authenticate(const Frame& f, const SecretLookup& secret_for) {
  if (!valid_node_id(f.node_id)) return fail(ProtocolErrc::bad_encoding);
  const auto secret = secret_for ? secret_for(f.node_id) : std::nullopt;
  if (!secret) return fail(ProtocolErrc::unknown_node);
  if (!tag_matches(f.signed_bytes, f.tag, *secret)) return fail(ProtocolErrc::bad_tag);
  return {};
}

// Step 7: the authenticated fields, each against its cap and the others.
Result<SummaryMessage> read_fields(const Frame& f, const DecodeLimits& limits) {
  const WireHeader& h = f.header;
  const auto is = [&](MessageKind kind) { return h.kind == static_cast<std::uint8_t>(kind); };
  const bool full = is(MessageKind::full);
  const bool fingerprint = is(MessageKind::fingerprint_full) || is(MessageKind::fingerprint_delta);
  const bool full_kind = full || is(MessageKind::fingerprint_full);
  const bool raw = h.compression == static_cast<std::uint8_t>(Compression::raw);
  const bool coded = h.compression == static_cast<std::uint8_t>(Compression::rice_gaps);
  const std::uint8_t allowed_flags = full && coded ? kFlagCodesZeros : 0;
  if (!(full && (raw || coded)) && !((is(MessageKind::delta) || fingerprint) && coded)) {
    return fail(ProtocolErrc::bad_encoding);
  }
  // The last term: a fingerprint kind that a version-1 reader would not
  // refuse (docs/protocol.md, "Versions").
  if ((h.flags & ~allowed_flags) != 0 || h.rice_parameter > kMaxRiceParameter ||
      (raw && h.rice_parameter != 0) || (fingerprint && h.min_version < kFingerprintVersion)) {
    return fail(ProtocolErrc::bad_encoding);
  }
  if (!filters::Hasher::known(h.hash_id)) return fail(ProtocolErrc::unknown_hash);
  auto hasher = filters::Hasher::create(static_cast<filters::HashId>(h.hash_id), h.seed);
  if (!hasher) return fail(ProtocolErrc::bad_encoding);
  if (h.m == 0 || h.k == 0 || (fingerprint && h.k != 1)) return fail(ProtocolErrc::bad_encoding);
  if (h.m > limits.max_m || h.k > limits.max_k) return fail(ProtocolErrc::over_cap);
  if (filters::validate({h.m, h.k})) return fail(ProtocolErrc::over_cap);
  if (full_kind ? h.base_sequence != 0 : h.sequence <= h.base_sequence) {
    return fail(ProtocolErrc::bad_encoding);
  }

  SummaryMessage message;
  message.kind = static_cast<MessageKind>(h.kind);
  message.version = h.version;
  message.min_version = h.min_version;
  message.compression = raw ? Compression::raw : Compression::rice_gaps;
  message.info.node_id = std::string(f.node_id);
  message.info.epoch = h.epoch;
  message.info.sequence = h.sequence;
  message.info.params = {h.m, h.k};
  message.info.hasher = *hasher;
  message.info.entries = h.entries;
  message.base_sequence = h.base_sequence;
  return message;
}

// Steps 8 and 9, by kind.
std::error_code read_payload(const WireHeader& h, std::string_view payload,
                             const DecodeLimits& limits, SummaryMessage& message) {
  switch (message.kind) {
    case MessageKind::full: {
      auto bits = decode_full_payload(h, message.info.hasher, payload);
      if (!bits) return bits.error();
      message.bits = std::move(bits).value();
      return {};
    }
    case MessageKind::delta: {
      auto changes = decode_delta_payload(h, limits.max_changes, payload);
      if (!changes) return changes.error();
      message.changes = std::move(changes).value();
      return {};
    }
    case MessageKind::fingerprint_full: {
      auto sorted = decode_fingerprint_full_payload(h, limits.max_fingerprints, payload);
      if (!sorted) return sorted.error();
      message.fingerprints.added = std::move(sorted).value();
      return {};
    }
    case MessageKind::fingerprint_delta: {
      auto delta =
          decode_fingerprint_delta_payload(h, limits.max_fingerprints, limits.max_changes, payload);
      if (!delta) return delta.error();
      message.fingerprints = std::move(delta).value();
      return {};
    }
  }
  return fail(ProtocolErrc::bad_encoding);  // read_fields admits no other kind
}

}  // namespace

Result<SummaryMessage> decode(std::string_view bytes, const SecretLookup& secret_for,
                              const DecodeLimits& limits) {
  auto frame = read_frame(bytes, limits);
  if (!frame) return frame.error();
  if (auto ec = authenticate(*frame, secret_for)) return ec;
  auto message = read_fields(*frame, limits);
  if (!message) return message.error();
  if (auto ec = read_payload(frame->header, frame->payload, limits, *message)) return ec;
  message->wire_bytes = bytes.size();
  return message;
}

}  // namespace sumcache::protocol
