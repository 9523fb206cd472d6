#include "protocol/fingerprint_payload.h"

#include "filters/byte_io.h"
#include "protocol/bit_reader.h"
#include "protocol/bit_writer.h"
#include "protocol/fingerprint_lists.h"
#include "protocol/protocol_error.h"
#include "protocol/rice_list.h"

namespace sumcache::protocol {
namespace {

std::error_code fail(ProtocolErrc e) { return make_error_code(e); }

std::uint64_t le64_at(std::string_view bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    value |= std::uint64_t{static_cast<std::uint8_t>(bytes[i])} << (8 * i);
  }
  return value;
}

}  // namespace

EncodedPayload encode_fingerprint_full_payload(std::span<const std::uint64_t> sorted) {
  const RiceChoice rice = choose_rice(sorted, ListOrder::ascending);
  EncodedPayload out;
  out.compression = Compression::rice_gaps;
  out.rice_parameter = static_cast<std::uint8_t>(rice.parameter);
  out.count = sorted.size();
  out.bytes.reserve((rice.bits + 7) / 8);
  BitWriter writer(out.bytes);
  put_rice_list(writer, sorted, ListOrder::ascending, rice.parameter);
  writer.finish();
  return out;
}

EncodedPayload encode_fingerprint_delta_payload(const filters::FingerprintDelta& delta) {
  const RiceChoice ranks = choose_rice(delta.removed_ranks, ListOrder::distinct);
  const RiceChoice added = choose_rice(delta.added, ListOrder::ascending);
  EncodedPayload out;
  out.compression = Compression::rice_gaps;
  out.rice_parameter = static_cast<std::uint8_t>(added.parameter);
  out.count = delta.removed_ranks.size() + delta.added.size();
  out.bytes.reserve(kFingerprintDeltaPrefixBytes + (ranks.bits + added.bits + 7) / 8);
  filters::put_le(out.bytes, std::uint64_t{delta.removed_ranks.size()});
  filters::put_le(out.bytes, static_cast<std::uint8_t>(ranks.parameter));
  BitWriter writer(out.bytes);
  put_rice_list(writer, delta.removed_ranks, ListOrder::distinct, ranks.parameter);
  put_rice_list(writer, delta.added, ListOrder::ascending, added.parameter);
  writer.finish();
  return out;
}

Result<std::vector<std::uint64_t>> decode_fingerprint_full_payload(const WireHeader& h,
                                                                   std::uint64_t max_fingerprints,
                                                                   std::string_view payload) {
  const std::uint64_t count = h.payload_count;
  if (count > max_fingerprints) return fail(ProtocolErrc::over_cap);
  if (count != h.entries) return fail(ProtocolErrc::inconsistent_sizes);
  const std::uint64_t min_bits_per_code = h.rice_parameter + 1U;
  if (count > payload.size() * 8 / min_bits_per_code) {
    return fail(ProtocolErrc::inconsistent_sizes);
  }
  std::vector<std::uint64_t> sorted;
  sorted.reserve(count);
  BitReader in(payload);
  if (!get_rice_list(in, count, h.rice_parameter, ListOrder::ascending, h.m, sorted) ||
      !in.only_padding_left()) {
    return fail(ProtocolErrc::bad_encoding);
  }
  return sorted;
}

Result<filters::FingerprintDelta> decode_fingerprint_delta_payload(const WireHeader& h,
                                                                   std::uint64_t max_fingerprints,
                                                                   std::uint64_t max_changes,
                                                                   std::string_view payload) {
  if (h.entries > max_fingerprints || h.payload_count > max_changes) {
    return fail(ProtocolErrc::over_cap);
  }
  if (payload.size() < kFingerprintDeltaPrefixBytes) return fail(ProtocolErrc::inconsistent_sizes);
  const std::uint64_t removed = le64_at(payload);
  const unsigned removed_parameter = static_cast<std::uint8_t>(payload[8]);
  if (removed > h.payload_count) return fail(ProtocolErrc::inconsistent_sizes);
  if (removed_parameter > kMaxRiceParameter) return fail(ProtocolErrc::bad_encoding);
  const std::uint64_t added = h.payload_count - removed;
  // removed * (r_r + 1) + added * (r + 1) <= the stream's bits, without overflow.
  const std::string_view stream = payload.substr(kFingerprintDeltaPrefixBytes);
  const std::uint64_t stream_bits = stream.size() * 8;
  if (removed > stream_bits / (removed_parameter + 1U)) {
    return fail(ProtocolErrc::inconsistent_sizes);
  }
  const std::uint64_t bits_left = stream_bits - removed * (removed_parameter + 1U);
  if (added > bits_left / (h.rice_parameter + 1U)) return fail(ProtocolErrc::inconsistent_sizes);
  const auto base = fingerprint_base_size(h.entries, removed, added);
  if (!base || removed > *base) return fail(ProtocolErrc::inconsistent_sizes);
  if (*base > max_fingerprints) return fail(ProtocolErrc::over_cap);  // no receiver holds it

  filters::FingerprintDelta delta;
  delta.removed_ranks.reserve(removed);
  delta.added.reserve(added);
  BitReader in(stream);
  if (!get_rice_list(in, removed, removed_parameter, ListOrder::distinct, *base,
                     delta.removed_ranks) ||
      !get_rice_list(in, added, h.rice_parameter, ListOrder::ascending, h.m, delta.added) ||
      !in.only_padding_left()) {
    return fail(ProtocolErrc::bad_encoding);
  }
  return delta;
}

}  // namespace sumcache::protocol
