#include "protocol/wire_header.h"

#include <cassert>
#include <span>

#include "filters/byte_io.h"

namespace sumcache::protocol {
void append_header(std::string& out, const WireHeader& h) {
  filters::put_le(out, kMagic);
  filters::put_le(out, h.version);
  filters::put_le(out, h.min_version);
  filters::put_le(out, h.header_bytes);
  filters::put_le(out, h.kind);
  filters::put_le(out, h.compression);
  filters::put_le(out, h.hash_id);
  filters::put_le(out, h.node_id_bytes);
  filters::put_le(out, h.rice_parameter);
  filters::put_le(out, h.flags);
  filters::put_le(out, h.k);
  filters::put_le(out, h.seed);
  filters::put_le(out, h.epoch);
  filters::put_le(out, h.sequence);
  filters::put_le(out, h.base_sequence);
  filters::put_le(out, h.m);
  filters::put_le(out, h.entries);
  filters::put_le(out, h.payload_count);
  filters::put_le(out, h.payload_bytes);
}

WireHeader read_header(std::string_view bytes) {
  assert(bytes.size() >= kHeaderBytes);
  filters::ByteReader in(
      std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  in.le<std::uint32_t>();  // magic
  WireHeader h;
  h.version = in.le<std::uint16_t>();
  h.min_version = in.le<std::uint16_t>();
  h.header_bytes = in.le<std::uint16_t>();
  h.kind = in.le<std::uint8_t>();
  h.compression = in.le<std::uint8_t>();
  h.hash_id = in.le<std::uint8_t>();
  h.node_id_bytes = in.le<std::uint8_t>();
  h.rice_parameter = in.le<std::uint8_t>();
  h.flags = in.le<std::uint8_t>();
  h.k = in.le<std::uint32_t>();
  h.seed = in.le<std::uint64_t>();
  h.epoch = in.le<std::uint64_t>();
  h.sequence = in.le<std::uint64_t>();
  h.base_sequence = in.le<std::uint64_t>();
  h.m = in.le<std::uint64_t>();
  h.entries = in.le<std::uint64_t>();
  h.payload_count = in.le<std::uint64_t>();
  h.payload_bytes = in.le<std::uint64_t>();
  return h;
}

}  // namespace sumcache::protocol
