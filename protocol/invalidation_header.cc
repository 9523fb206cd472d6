#include "protocol/invalidation_header.h"

#include <cassert>
#include <span>

#include "filters/byte_io.h"

namespace sumcache::protocol {
void append_invalidation_header(std::string& out, const InvalidationHeader& h) {
  filters::put_le(out, kInvalidationMagic);
  filters::put_le(out, h.version);
  filters::put_le(out, h.min_version);
  filters::put_le(out, h.header_bytes);
  filters::put_le(out, h.kind);
  filters::put_le(out, h.node_id_bytes);
  filters::put_le(out, h.count);
  filters::put_le(out, h.flags);
  filters::put_le(out, h.epoch);
  filters::put_le(out, h.sequence);
  filters::put_le(out, h.missed_until_ms);
  filters::put_le(out, h.payload_bytes);
}

InvalidationHeader read_invalidation_header(std::string_view bytes) {
  assert(bytes.size() >= kInvalidationHeaderBytes);
  filters::ByteReader in(
      std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  in.le<std::uint32_t>();  // magic
  InvalidationHeader h;
  h.version = in.le<std::uint16_t>();
  h.min_version = in.le<std::uint16_t>();
  h.header_bytes = in.le<std::uint16_t>();
  h.kind = in.le<std::uint8_t>();
  h.node_id_bytes = in.le<std::uint8_t>();
  h.count = in.le<std::uint16_t>();
  h.flags = in.le<std::uint16_t>();
  h.epoch = in.le<std::uint64_t>();
  h.sequence = in.le<std::uint64_t>();
  h.missed_until_ms = in.le<std::uint64_t>();
  h.payload_bytes = in.le<std::uint32_t>();
  return h;
}

}  // namespace sumcache::protocol
