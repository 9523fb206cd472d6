#include "protocol/invalidation_header.h"

#include <cassert>
#include <span>

#include "filters/byte_io.h"

namespace sumcache::protocol {
namespace {

template <class T>
void put(std::string& out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    out.push_back(static_cast<char>(static_cast<std::uint8_t>(value >> (8 * i))));
  }
}

}  // namespace

void append_invalidation_header(std::string& out, const InvalidationHeader& h) {
  put(out, kInvalidationMagic);
  put(out, h.version);
  put(out, h.min_version);
  put(out, h.header_bytes);
  put(out, h.kind);
  put(out, h.node_id_bytes);
  put(out, h.count);
  put(out, h.flags);
  put(out, h.epoch);
  put(out, h.sequence);
  put(out, h.missed_until_ms);
  put(out, h.payload_bytes);
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
