#pragma once
// Shared inputs of the protocol tests, and a way to build signed messages
// whose fields a test chooses, so that a damaged field reaches the check
// behind the tag.

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "filters/bloom_filter.h"
#include "protocol/decode.h"
#include "protocol/message_tag.h"
#include "protocol/summary_message.h"
#include "protocol/wire_header.h"

namespace sumcache::protocol::testing {

inline constexpr std::string_view kSecret = "cluster-secret-for-tests";

inline SecretLookup secret_for_known_nodes() {
  return [](std::string_view node) -> std::optional<std::string> {
    if (node == "node-a" || node == "node-b") return std::string(kSecret);
    return std::nullopt;
  };
}

inline SummaryInfo info_for(const filters::BloomFilter& bits, std::uint64_t sequence = 1) {
  SummaryInfo info;
  info.node_id = "node-a";
  info.epoch = 1'700'000'000;
  info.sequence = sequence;
  info.params = bits.params();
  info.hasher = bits.hasher();
  info.entries = 10;
  return info;
}

// m bits, each set with probability `fill` (deterministic for a seed).
inline filters::BloomFilter random_bits(std::uint64_t m, std::uint32_t k, double fill,
                                        std::uint64_t seed) {
  auto bits = filters::BloomFilter::create({m, k});
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution set(fill);
  for (std::uint64_t i = 0; i < m; ++i) bits->set_bit(i, set(rng));
  return std::move(bits).value();
}

// A message's parts, as read back from its bytes.
struct Parts {
  WireHeader header;
  std::string node_id;
  std::string payload;
};

inline Parts split(std::string_view message) {
  Parts p;
  p.header = read_header(message);
  p.node_id = std::string(message.substr(p.header.header_bytes, p.header.node_id_bytes));
  p.payload = std::string(
      message.substr(p.header.header_bytes + p.header.node_id_bytes, p.header.payload_bytes));
  return p;
}

// Header, `extra` header bytes, node id and payload, signed. Sizes in the
// header are written as they are: the caller keeps them right or not.
inline std::string sign(const Parts& p, std::string_view extra = {},
                        std::string_view secret = kSecret) {
  std::string out;
  append_header(out, p.header);
  out += extra;
  out += p.node_id;
  out += p.payload;
  append_tag(out, secret);
  return out;
}

// `message` with its parts changed by `edit`, sizes recomputed unless the
// edit sets them, and signed again with the right secret.
inline std::string resign(std::string_view message, const std::function<void(Parts&)>& edit,
                          bool fix_sizes = true) {
  Parts p = split(message);
  edit(p);
  if (fix_sizes) {
    p.header.node_id_bytes = static_cast<std::uint8_t>(p.node_id.size());
    p.header.payload_bytes = p.payload.size();
  }
  return sign(p);
}

}  // namespace sumcache::protocol::testing
