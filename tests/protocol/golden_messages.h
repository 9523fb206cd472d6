#pragma once
// The fixed inputs behind tests/protocol/golden/*.bin, one per message kind
// and coding. The bytes pin the wire format: a change that alters them breaks
// every node of an older build.

#include <string>
#include <vector>

#include "filters/bloom_filter.h"
#include "protocol/encode.h"
#include "protocol/summary_message.h"

namespace sumcache::protocol::testing {

inline constexpr std::string_view kGoldenSecret = "golden-cluster-secret";

struct GoldenMessage {
  std::string file;        // under tests/protocol/golden/
  SummaryMessage message;  // what decoding the file must give (wire_bytes aside)
  std::string bytes() const {
    const SummaryInfo& info = message.info;
    return message.kind == MessageKind::full
               ? encode_full(info, *message.bits, kGoldenSecret).value()
               : encode_delta(info, message.base_sequence, message.changes, kGoldenSecret).value();
  }
};

inline SummaryMessage golden_full(std::uint64_t m, std::uint32_t k, filters::Hasher hasher,
                                  int keys, Compression expected) {
  auto bits = filters::BloomFilter::create({m, k}, hasher);
  for (int i = 0; i < keys; ++i) bits->add("http://golden.example/" + std::to_string(i));
  SummaryMessage msg;
  msg.kind = MessageKind::full;
  msg.compression = expected;
  msg.info = {"node-a", 1'700'000'000, 42, {m, k}, hasher, static_cast<std::uint64_t>(keys)};
  msg.bits = std::move(bits).value();
  return msg;
}

inline std::vector<GoldenMessage> golden_messages() {
  const auto seeded = *filters::Hasher::create(filters::HashId::xxh3_128, 0x5eed);
  const auto md5 = *filters::Hasher::create(filters::HashId::md5);
  std::vector<GoldenMessage> out;
  // Half the bits set: nothing to gain from coding.
  out.push_back({"full_raw.bin", golden_full(2000, 4, seeded, 350, Compression::raw)});
  // Sparse, k = 1 (the wire-optimal shape): the ones' positions coded.
  out.push_back({"full_rice.bin", golden_full(4000, 1, {}, 100, Compression::rice_gaps)});
  // Dense: the zeros' positions coded (flag bit 0).
  out.push_back({"full_rice_zeros.bin", golden_full(1000, 4, md5, 600, Compression::rice_gaps)});
  SummaryMessage delta;
  delta.kind = MessageKind::delta;
  delta.compression = Compression::rice_gaps;
  delta.info = {"node-b", 1'700'000'000, 45, {4000, 1}, {}, 103};
  delta.base_sequence = 42;
  for (std::uint64_t i = 3; i < 4000; i += 37 + (i % 11) * 13)
    delta.changes.push_back({i, i % 3 != 0});
  out.push_back({"delta.bin", std::move(delta)});
  return out;
}

}  // namespace sumcache::protocol::testing
