#include "protocol/encode.h"

#include "protocol/delta_payload.h"
#include "protocol/fingerprint_lists.h"
#include "protocol/fingerprint_payload.h"
#include "protocol/full_payload.h"
#include "protocol/message_tag.h"
#include "protocol/node_id.h"
#include "protocol/protocol_error.h"
#include "protocol/wire_header.h"

namespace sumcache::protocol {
namespace {

bool fingerprint_kind(MessageKind kind) {
  return kind == MessageKind::fingerprint_full || kind == MessageKind::fingerprint_delta;
}

Result<std::string> seal(const SummaryInfo& info, MessageKind kind, std::uint64_t base_sequence,
                         const EncodedPayload& payload, std::string_view secret) {
  WireHeader h;
  // docs/protocol.md, "Versions": a version-1 reader must refuse the fingerprint kinds.
  if (fingerprint_kind(kind)) h.version = h.min_version = kFingerprintVersion;
  h.kind = static_cast<std::uint8_t>(kind);
  h.compression = static_cast<std::uint8_t>(payload.compression);
  h.hash_id = static_cast<std::uint8_t>(info.hasher.id());
  h.node_id_bytes = static_cast<std::uint8_t>(info.node_id.size());
  h.rice_parameter = payload.rice_parameter;
  h.flags = payload.flags;
  h.k = info.params.k;
  h.seed = info.hasher.seed();
  h.epoch = info.epoch;
  h.sequence = info.sequence;
  h.base_sequence = base_sequence;
  h.m = info.params.m;
  h.entries = info.entries;
  h.payload_count = payload.count;
  h.payload_bytes = payload.bytes.size();

  std::string out;
  out.reserve(kHeaderBytes + info.node_id.size() + payload.bytes.size() + kTagBytes);
  append_header(out, h);
  out += info.node_id;
  out += payload.bytes;
  if (!append_tag(out, secret)) return make_error_code(ProtocolErrc::signing_failed);
  return out;
}

}  // namespace

std::error_code check_summary(const SummaryInfo& info) {
  if (!valid_node_id(info.node_id) || filters::validate(info.params)) {
    return ProtocolErrc::invalid_summary;
  }
  return {};
}

std::error_code check_delta(const SummaryInfo& info, std::uint64_t base_sequence,
                            std::span<const filters::BitChange> changes) {
  if (auto ec = check_summary(info)) return ec;
  if (base_sequence >= info.sequence) return ProtocolErrc::invalid_summary;
  std::uint64_t next = 0;  // the lowest position the next change may name
  for (const auto& change : changes) {
    if (change.position < next || change.position >= info.params.m) {
      return ProtocolErrc::invalid_summary;
    }
    next = change.position + 1;
  }
  return {};
}

std::error_code check_fingerprint_full(const SummaryInfo& info,
                                       std::span<const std::uint64_t> sorted) {
  if (auto ec = check_summary(info)) return ec;
  if (info.params.k != 1 || info.entries != sorted.size() ||
      !sorted_below(sorted, info.params.m, false)) {
    return ProtocolErrc::invalid_summary;
  }
  return {};
}

std::error_code check_fingerprint_delta(const SummaryInfo& info, std::uint64_t base_sequence,
                                        const filters::FingerprintDelta& delta) {
  if (auto ec = check_summary(info)) return ec;
  if (info.params.k != 1 || base_sequence >= info.sequence ||
      !valid_fingerprint_delta(delta, info.entries, info.params.m)) {
    return ProtocolErrc::invalid_summary;
  }
  return {};
}

Result<std::string> encode_full(const SummaryInfo& info, const filters::BloomFilter& bits,
                                std::string_view secret) {
  if (auto ec = check_summary(info)) return ec;
  if (bits.params() != info.params || bits.hasher() != info.hasher) {
    return make_error_code(ProtocolErrc::invalid_summary);
  }
  return seal(info, MessageKind::full, 0, encode_full_payload(bits), secret);
}

Result<std::string> encode_delta(const SummaryInfo& info, std::uint64_t base_sequence,
                                 std::span<const filters::BitChange> changes,
                                 std::string_view secret) {
  if (auto ec = check_delta(info, base_sequence, changes)) return ec;
  return seal(info, MessageKind::delta, base_sequence, encode_delta_payload(changes), secret);
}

Result<std::string> encode_fingerprint_full(const SummaryInfo& info,
                                            std::span<const std::uint64_t> sorted,
                                            std::string_view secret) {
  if (auto ec = check_fingerprint_full(info, sorted)) return ec;
  return seal(info, MessageKind::fingerprint_full, 0, encode_fingerprint_full_payload(sorted),
              secret);
}

Result<std::string> encode_fingerprint_delta(const SummaryInfo& info, std::uint64_t base_sequence,
                                             const filters::FingerprintDelta& delta,
                                             std::string_view secret) {
  if (auto ec = check_fingerprint_delta(info, base_sequence, delta)) return ec;
  return seal(info, MessageKind::fingerprint_delta, base_sequence,
              encode_fingerprint_delta_payload(delta), secret);
}

}  // namespace sumcache::protocol
