#pragma once
// The fixed inputs behind tests/protocol/golden/*.bin, one per message kind
// and coding. The bytes pin the wire format: a change that alters them breaks
// every node of an older build.

#include <algorithm>
#include <string>
#include <vector>

#include "filters/bloom_filter.h"
#include "filters/fingerprint.h"
#include "protocol/encode.h"
#include "protocol/summary_message.h"
#include "tests/protocol/fingerprint_test_util.h"

namespace sumcache::protocol::testing {

inline constexpr std::string_view kGoldenSecret = "golden-cluster-secret";

// The message's content through the encoder of its kind.
inline std::string encode_message(const SummaryMessage& m, std::string_view secret) {
  switch (m.kind) {
    case MessageKind::full:
      return encode_full(m.info, *m.bits, secret).value();
    case MessageKind::delta:
      return encode_delta(m.info, m.base_sequence, m.changes, secret).value();
    case MessageKind::fingerprint_full:
      return encode_fingerprint_full(m.info, m.fingerprints.added, secret).value();
    case MessageKind::fingerprint_delta:
      return encode_fingerprint_delta(m.info, m.base_sequence, m.fingerprints, secret).value();
  }
  return {};
}

struct GoldenMessage {
  std::string file;        // under tests/protocol/golden/
  SummaryMessage message;  // what decoding the file must give (wire_bytes aside)
  std::string bytes() const { return encode_message(message, kGoldenSecret); }
};

// The fingerprints of keys "http://golden.example/<first..first+count-1>", ascending.
inline std::vector<std::uint64_t> golden_fingerprints(const filters::Hasher& hasher,
                                                      std::uint64_t universe, int first,
                                                      int count) {
  std::vector<std::uint64_t> out;
  for (int i = first; i < first + count; ++i) {
    out.push_back(
        filters::fingerprint(hasher("http://golden.example/" + std::to_string(i)), universe));
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline SummaryMessage golden_fingerprint_full(std::uint64_t universe, filters::Hasher hasher,
                                              int keys) {
  SummaryMessage msg;
  msg.kind = MessageKind::fingerprint_full;
  msg.version = msg.min_version = kFingerprintVersion;
  msg.compression = Compression::rice_gaps;
  msg.info = {"node-a", 1'700'000'000, 42, {universe, 1}, hasher, static_cast<std::uint64_t>(keys)};
  msg.fingerprints.added = golden_fingerprints(hasher, universe, 0, keys);
  return msg;
}

// 300 keys in a universe of 3001 (not a power of two): about 15 fingerprints
// held twice, so the gaps include repeats.
inline constexpr std::uint64_t kGoldenUniverse = 3001;

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

  out.push_back({"fingerprint_full.bin", golden_fingerprint_full(kGoldenUniverse, {}, 300)});
  // The same sender 3 sequences later: keys 0..29 gone, 300..339 come, and one
  // of them twice (a second key with its fingerprint).
  SummaryMessage fp_delta;
  fp_delta.kind = MessageKind::fingerprint_delta;
  fp_delta.version = fp_delta.min_version = kFingerprintVersion;
  fp_delta.compression = Compression::rice_gaps;
  fp_delta.base_sequence = 42;
  const auto base = golden_fingerprints({}, kGoldenUniverse, 0, 300);
  auto now = golden_fingerprints({}, kGoldenUniverse, 30, 310);
  now.insert(std::lower_bound(now.begin(), now.end(), now[100]), now[100]);
  fp_delta.info = {"node-a", 1'700'000'000, 45, {kGoldenUniverse, 1}, {}, now.size()};
  fp_delta.fingerprints = filters::fingerprint_difference(base, now);
  out.push_back({"fingerprint_delta.bin", std::move(fp_delta)});
  // md5, a seedless hasher, in a large universe (10^4 keys at p = 0.24%).
  out.push_back({"fingerprint_full_md5.bin", golden_fingerprint_full(4'177'000, md5, 40)});
  return out;
}

}  // namespace sumcache::protocol::testing
