#pragma once
// Inputs of the invalidation message tests, and a way to build signed
// messages whose fields a test chooses, so that a damaged field reaches the
// check behind the tag.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/invalidation_header.h"
#include "protocol/invalidation_message.h"
#include "protocol/message_tag.h"
#include "tests/protocol/protocol_test_util.h"

namespace sumcache::protocol::testing {

inline InvalidationBatch sample_batch() {
  InvalidationBatch batch;
  batch.node_id = "node-a";
  batch.epoch = 1'700'000'000ULL << 20;
  batch.first_seq = 7;
  batch.entries = {
      {InvalidationKind::url, 1'700'000'000'123, "http://example.com/a?b=1"},
      {InvalidationKind::tag, 1'700'000'000'124, "product-42"},
      {InvalidationKind::prefix, 1'700'000'000'125, "http://example.com/static/"},
  };
  return batch;
}

inline InvalidationAck sample_ack() { return {"node-b", "node-a", 1'700'000'000ULL << 20, 9}; }

// A message's parts as a test writes them: the header's sizes are filled in
// from the parts unless `fix_sizes` is false.
struct RawMessage {
  InvalidationHeader header;
  std::string node_id = "node-a";
  std::string payload;
};

inline std::string seal_raw(RawMessage raw, std::string_view extra_header = {},
                            bool fix_sizes = true, std::string_view secret = kSecret) {
  if (fix_sizes) {
    raw.header.node_id_bytes = static_cast<std::uint8_t>(raw.node_id.size());
    raw.header.payload_bytes = static_cast<std::uint32_t>(raw.payload.size());
  }
  std::string out;
  append_invalidation_header(out, raw.header);
  out += extra_header;
  out += raw.node_id;
  out += raw.payload;
  append_tag(out, secret);
  return out;
}

// One payload entry; `length` overrides the value's own length on the wire.
inline std::string entry_bytes(std::uint8_t kind, std::uint64_t time_ms, std::string_view value,
                               std::optional<std::uint16_t> length = std::nullopt) {
  std::string out;
  out.push_back(static_cast<char>(kind));
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(time_ms >> (8 * i)));
  const std::uint16_t n = length.value_or(static_cast<std::uint16_t>(value.size()));
  out.push_back(static_cast<char>(n & 0xFF));
  out.push_back(static_cast<char>(n >> 8));
  out += value;
  return out;
}

// A raw batch of `count` url entries "http://x/<i>", first_seq 1.
inline RawMessage raw_batch(std::size_t count = 2) {
  RawMessage raw;
  raw.header.kind = static_cast<std::uint8_t>(InvalidationMessageKind::invalidations);
  raw.header.count = static_cast<std::uint16_t>(count);
  raw.header.epoch = 5;
  raw.header.sequence = 1;
  for (std::size_t i = 0; i < count; ++i) {
    raw.payload += entry_bytes(1, 1000 + i, "http://x/" + std::to_string(i));
  }
  return raw;
}

inline RawMessage raw_ack() {
  RawMessage raw;
  raw.header.kind = static_cast<std::uint8_t>(InvalidationMessageKind::ack);
  raw.header.epoch = 5;
  raw.header.sequence = 3;
  raw.node_id = "node-b";
  raw.payload = "node-a";
  return raw;
}

}  // namespace sumcache::protocol::testing
