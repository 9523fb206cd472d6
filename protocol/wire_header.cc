#include "protocol/wire_header.h"

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

void append_header(std::string& out, const WireHeader& h) {
  put(out, kMagic);
  put(out, h.version);
  put(out, h.min_version);
  put(out, h.header_bytes);
  put(out, h.kind);
  put(out, h.compression);
  put(out, h.hash_id);
  put(out, h.node_id_bytes);
  put(out, h.rice_parameter);
  put(out, h.flags);
  put(out, h.k);
  put(out, h.seed);
  put(out, h.epoch);
  put(out, h.sequence);
  put(out, h.base_sequence);
  put(out, h.m);
  put(out, h.entries);
  put(out, h.payload_count);
  put(out, h.payload_bytes);
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
