#include "protocol/delta_payload.h"

#include "protocol/bit_reader.h"
#include "protocol/bit_writer.h"
#include "protocol/protocol_error.h"
#include "protocol/rice_code.h"

namespace sumcache::protocol {

EncodedPayload encode_delta_payload(std::span<const filters::BitChange> changes) {
  EncodedPayload out;
  out.compression = Compression::rice_gaps;
  out.count = changes.size();
  if (changes.empty()) return out;
  const std::uint64_t span_bits = changes.back().position + 1;
  RiceSizer sizer(static_cast<double>(span_bits - changes.size()) /
                  static_cast<double>(changes.size()));
  std::uint64_t next = 0;
  for (const auto& change : changes) {
    sizer.add(change.position - next);
    next = change.position + 1;
  }
  out.rice_parameter = static_cast<std::uint8_t>(sizer.best_parameter());
  out.bytes.reserve((sizer.best_bits() + changes.size() + 7) / 8);
  BitWriter writer(out.bytes);
  next = 0;
  for (const auto& change : changes) {
    put_rice(writer, change.position - next, out.rice_parameter);
    writer.put(change.value ? 1 : 0, 1);
    next = change.position + 1;
  }
  writer.finish();
  return out;
}

Result<std::vector<filters::BitChange>> decode_delta_payload(const WireHeader& h,
                                                             std::uint64_t max_changes,
                                                             std::string_view payload) {
  if (h.payload_count > max_changes) return make_error_code(ProtocolErrc::over_cap);
  const std::uint64_t min_bits_per_change = h.rice_parameter + 2U;
  if (h.payload_count > h.m || h.payload_count > payload.size() * 8 / min_bits_per_change) {
    return make_error_code(ProtocolErrc::inconsistent_sizes);
  }
  std::vector<filters::BitChange> changes;
  changes.reserve(h.payload_count);
  BitReader in(payload);
  std::uint64_t next = 0;
  for (std::uint64_t i = 0; i < h.payload_count; ++i) {
    std::uint64_t gap = 0;
    std::uint64_t value = 0;
    if (next >= h.m || !get_rice(in, h.rice_parameter, h.m - 1 - next, gap) || !in.get(1, value)) {
      return make_error_code(ProtocolErrc::bad_encoding);
    }
    changes.push_back({next + gap, value != 0});
    next += gap + 1;
  }
  if (!in.only_padding_left()) return make_error_code(ProtocolErrc::bad_encoding);
  return changes;
}

}  // namespace sumcache::protocol
