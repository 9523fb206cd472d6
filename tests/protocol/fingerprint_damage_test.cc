// The fingerprint kinds' decoding checks, in the order docs/protocol.md
// ("Decoding, in order") gives them: each damaged field behind a valid tag
// reaches its own check and gets its own error.

#include <gtest/gtest.h>

#include <random>

#include "filters/byte_io.h"
#include "protocol/bit_writer.h"
#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/fingerprint_payload.h"
#include "protocol/protocol_error.h"
#include "protocol/rice_code.h"
#include "tests/protocol/fingerprint_test_util.h"
#include "tests/protocol/protocol_test_util.h"

namespace sumcache::protocol {
namespace {

using testing::fingerprint_info;
using testing::kSecret;
using testing::Parts;
using testing::resign;
using testing::secret_for_known_nodes;

constexpr std::uint64_t kUniverse = 100'000;

std::error_code decode_error(std::string_view bytes, const DecodeLimits& limits = {}) {
  auto r = decode(bytes, secret_for_known_nodes(), limits);
  return r.ok() ? std::error_code{} : r.error();
}

const std::vector<std::uint64_t>& base_set() {
  static const auto set = testing::random_fingerprints(kUniverse, 200, 0.05, 3);
  return set;
}

std::string fp_full() {
  return encode_fingerprint_full(fingerprint_info(kUniverse, 200, 8), base_set(), kSecret).value();
}

// Ranks 0, 5, 199 of 200 out; 3 twice and U - 1 in: 200 after.
std::string fp_delta() {
  const filters::FingerprintDelta delta{{0, 5, 199}, {3, 3, kUniverse - 1}};
  return encode_fingerprint_delta(fingerprint_info(kUniverse, 200, 8), 7, delta, kSecret).value();
}

// Gaps of a list in the payload's bit stream (docs/protocol.md, "Fingerprint gaps").
void put_list(BitWriter& w, const std::vector<std::uint64_t>& values, bool distinct, unsigned r) {
  std::uint64_t lowest = 0;
  for (std::uint64_t v : values) {
    put_rice(w, v - lowest, r);
    lowest = distinct ? v + 1 : v;
  }
}

std::string full_payload(const std::vector<std::uint64_t>& values, unsigned r) {
  std::string out;
  BitWriter w(out);
  put_list(w, values, false, r);
  w.finish();
  return out;
}

std::string delta_payload(const std::vector<std::uint64_t>& ranks, unsigned rank_r,
                          const std::vector<std::uint64_t>& added, unsigned added_r,
                          std::uint64_t declared_ranks) {
  std::string out;
  filters::put_le(out, declared_ranks);
  filters::put_le(out, static_cast<std::uint8_t>(rank_r));
  BitWriter w(out);
  put_list(w, ranks, true, rank_r);
  put_list(w, added, false, added_r);
  w.finish();
  return out;
}

// fp_delta() with these lists, its header's count, parameter and entries set to match.
std::string delta_with(const std::vector<std::uint64_t>& ranks,
                       const std::vector<std::uint64_t>& added, std::uint64_t entries) {
  return resign(fp_delta(), [&](Parts& p) {
    p.header.payload_count = ranks.size() + added.size();
    p.header.rice_parameter = 5;
    p.header.entries = entries;
    p.payload = delta_payload(ranks, 3, added, 5, ranks.size());
  });
}

TEST(FingerprintDamage, BothKindsDecodeUndamaged) {
  auto full = decode(fp_full(), secret_for_known_nodes());
  ASSERT_TRUE(full.ok()) << full.error().message();
  EXPECT_EQ(full->fingerprints.added, base_set());
  auto delta = decode(fp_delta(), secret_for_known_nodes());
  ASSERT_TRUE(delta.ok()) << delta.error().message();
  EXPECT_EQ(delta->fingerprints, (filters::FingerprintDelta{{0, 5, 199}, {3, 3, kUniverse - 1}}));
}

TEST(FingerprintDamage, EveryTruncationIsTruncatedAndEveryFlippedByteIsRejected) {
  for (const std::string& message : {fp_full(), fp_delta()}) {
    for (std::size_t n = 0; n < message.size(); ++n) {
      ASSERT_EQ(decode_error(message.substr(0, n)), ProtocolErrc::truncated) << n;
    }
    for (std::size_t i = 0; i < message.size(); ++i) {
      for (unsigned mask : {0x01U, 0x10U, 0x80U, 0xFFU}) {
        std::string damaged = message;
        damaged[i] = static_cast<char>(damaged[i] ^ mask);
        const auto ec = decode_error(damaged);
        ASSERT_TRUE(ec) << "byte " << i << " mask " << mask;
        if (i >= kHeaderBytes + 6) {
          ASSERT_EQ(ec, ProtocolErrc::bad_tag) << "byte " << i;
        }
      }
    }
  }
}

TEST(FingerprintDamage, VersionOneOrAMinimumBelowTwoIsBadEncoding) {
  for (const std::string& message : {fp_full(), fp_delta()}) {
    EXPECT_EQ(decode_error(resign(message, [](Parts& p) { p.header.min_version = 1; })),
              ProtocolErrc::bad_encoding);
    EXPECT_EQ(decode_error(resign(message,
                                  [](Parts& p) {
                                    p.header.version = 1;
                                    p.header.min_version = 1;
                                  })),
              ProtocolErrc::bad_encoding);
    // A newer writer that version 2 can still read is read.
    EXPECT_EQ(decode_error(resign(message, [](Parts& p) { p.header.version = 3; })),
              std::error_code{});
    EXPECT_EQ(decode_error(resign(message, [](Parts& p) { p.header.min_version = 3; })),
              ProtocolErrc::unsupported_version);
  }
}

TEST(FingerprintDamage, HeaderFieldsOutsideTheKindsRulesAreRejected) {
  for (const std::string& message : {fp_full(), fp_delta()}) {
    const auto edited = [&](void (*edit)(Parts&)) { return decode_error(resign(message, edit)); };
    EXPECT_EQ(edited([](Parts& p) { p.header.compression = 0; }), ProtocolErrc::bad_encoding);
    EXPECT_EQ(edited([](Parts& p) { p.header.compression = 2; }), ProtocolErrc::bad_encoding);
    EXPECT_EQ(edited([](Parts& p) { p.header.flags = kFlagCodesZeros; }),
              ProtocolErrc::bad_encoding);
    EXPECT_EQ(edited([](Parts& p) { p.header.rice_parameter = 64; }), ProtocolErrc::bad_encoding);
    EXPECT_EQ(edited([](Parts& p) { p.header.k = 2; }), ProtocolErrc::bad_encoding);
    EXPECT_EQ(edited([](Parts& p) { p.header.k = 0; }), ProtocolErrc::bad_encoding);
    EXPECT_EQ(edited([](Parts& p) { p.header.m = 0; }), ProtocolErrc::bad_encoding);
    EXPECT_EQ(edited([](Parts& p) { p.header.hash_id = 9; }), ProtocolErrc::unknown_hash);
    EXPECT_EQ(edited([](Parts& p) { p.header.m = (1ULL << 34) + 1; }), ProtocolErrc::over_cap);
    DecodeLimits small;
    small.max_m = kUniverse - 1;
    EXPECT_EQ(decode_error(message, small), ProtocolErrc::over_cap);
    EXPECT_EQ(edited([](Parts& p) { p.header.kind = 7; }), ProtocolErrc::bad_encoding);
  }
  EXPECT_EQ(decode_error(resign(fp_full(), [](Parts& p) { p.header.base_sequence = 1; })),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(
                resign(fp_delta(), [](Parts& p) { p.header.sequence = p.header.base_sequence; })),
            ProtocolErrc::bad_encoding);
}

TEST(FingerprintDamage, FullCountAgainstItsCapEntriesAndLength) {
  DecodeLimits small;
  small.max_fingerprints = 199;
  EXPECT_EQ(decode_error(fp_full(), small), ProtocolErrc::over_cap);
  small.max_fingerprints = 200;
  EXPECT_EQ(decode_error(fp_full(), small), std::error_code{});
  EXPECT_EQ(decode_error(resign(fp_full(), [](Parts& p) { p.header.entries = 201; })),
            ProtocolErrc::inconsistent_sizes);
  // Counts the payload's bits cannot hold, refused before allocating.
  for (std::uint64_t count : {std::uint64_t{1} << 25, std::uint64_t{1} << 26}) {
    EXPECT_EQ(decode_error(resign(
                  fp_full(), [&](Parts& p) { p.header.payload_count = p.header.entries = count; })),
              ProtocolErrc::inconsistent_sizes);
  }
  EXPECT_EQ(
      decode_error(resign(
          fp_full(), [](Parts& p) { p.header.payload_count = p.header.entries = 1ULL << 40; })),
      ProtocolErrc::over_cap);
  // Exactly as many codes as fit: 3 codes of r = 7 take 24 bits.
  const auto three = [](std::uint64_t count) {
    return resign(fp_full(), [count](Parts& p) {
      p.header.rice_parameter = 7;
      p.header.payload_count = p.header.entries = count;
      p.payload = full_payload({1, 2, 3}, 7);
    });
  };
  EXPECT_EQ(decode_error(three(3)), std::error_code{});
  EXPECT_EQ(decode_error(three(4)), ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(decode_error(three(2)), ProtocolErrc::bad_encoding);  // a code left unread
}

TEST(FingerprintDamage, FullFingerprintAtOrPastTheUniverseIsBadEncoding) {
  const auto with = [](std::vector<std::uint64_t> values) {
    return resign(fp_full(), [&](Parts& p) {
      p.header.rice_parameter = 10;
      p.header.payload_count = p.header.entries = values.size();
      p.payload = full_payload(values, 10);
    });
  };
  EXPECT_EQ(decode_error(with({kUniverse - 1})), std::error_code{});
  EXPECT_EQ(decode_error(with({kUniverse})), ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(with({5, kUniverse - 1, kUniverse - 1})), std::error_code{});
  EXPECT_EQ(decode_error(with({5, kUniverse - 1, kUniverse})), ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(with({})), std::error_code{});
}

TEST(FingerprintDamage, DeltaCountsAgainstTheirCaps) {
  DecodeLimits small;
  small.max_fingerprints = 199;  // entries is 200
  EXPECT_EQ(decode_error(fp_delta(), small), ProtocolErrc::over_cap);
  small = {};
  small.max_changes = 5;  // 6 changes
  EXPECT_EQ(decode_error(fp_delta(), small), ProtocolErrc::over_cap);
  small.max_changes = 6;
  EXPECT_EQ(decode_error(fp_delta(), small), std::error_code{});
  EXPECT_EQ(decode_error(resign(fp_delta(), [](Parts& p) { p.header.payload_count = 1ULL << 60; })),
            ProtocolErrc::over_cap);
}

TEST(FingerprintDamage, DeltaPrefixAndCountsAgainstTheBytesPresent) {
  EXPECT_EQ(decode_error(resign(fp_delta(), [](Parts& p) { p.payload.resize(8); })),
            ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(decode_error(resign(fp_delta(), [](Parts& p) { p.payload.clear(); })),
            ProtocolErrc::inconsistent_sizes);
  // More ranks than changes.
  EXPECT_EQ(decode_error(resign(fp_delta(), [](Parts& p) { p.payload[0] = 7; })),
            ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(decode_error(resign(fp_delta(), [](Parts& p) { p.payload[7] = 1; })),
            ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(decode_error(resign(fp_delta(), [](Parts& p) { p.payload[8] = 64; })),
            ProtocolErrc::bad_encoding);
  // Counts the stream's bits cannot hold, for either list.
  EXPECT_EQ(decode_error(resign(fp_delta(),
                                [](Parts& p) {
                                  p.header.payload_count = 1ULL << 24;
                                  p.header.entries = 1ULL << 24;
                                })),
            ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(decode_error(resign(fp_delta(),
                                [](Parts& p) {
                                  p.header.payload_count = 1ULL << 24;
                                  std::string prefix;
                                  filters::put_le(prefix, std::uint64_t{1} << 24);
                                  p.payload.replace(0, 8, prefix);
                                  p.header.entries = 0;
                                })),
            ProtocolErrc::inconsistent_sizes);
  // Two ranks (r = 3) and one addition (r = 5) fill 4 + 4 + 6 = 14 bits of 16.
  const auto sized = [](std::uint64_t added_count) {
    return resign(fp_delta(), [=](Parts& p) {
      p.header.payload_count = 2 + added_count;
      p.header.rice_parameter = 5;
      p.header.entries = 200 - 2 + added_count;
      p.payload = delta_payload({1, 2}, 3, {7}, 5, 2);
    });
  };
  EXPECT_EQ(decode_error(sized(1)), std::error_code{});
  EXPECT_EQ(decode_error(sized(2)), ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(decode_error(sized(0)), ProtocolErrc::bad_encoding);  // a code left unread
}

TEST(FingerprintDamage, DeltaBaseSizeMustExistHoldTheRanksAndFitTheCap) {
  // entries + removed - added: 0 + 1 - 2 is negative.
  EXPECT_EQ(decode_error(delta_with({0}, {1, 2}, 0)), ProtocolErrc::inconsistent_sizes);
  // Three distinct ranks in a base of 2 (entries 2 + 3 - 3).
  EXPECT_EQ(decode_error(delta_with({0, 1, 2}, {1, 2, 3}, 2)), ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(decode_error(delta_with({0, 1, 2}, {1, 2, 3}, 3)), std::error_code{});
  DecodeLimits small;
  small.max_fingerprints = 100;  // entries 100 fits, the base 102 does not
  EXPECT_EQ(decode_error(delta_with({0, 1, 2}, {1}, 100), small), ProtocolErrc::over_cap);
  EXPECT_EQ(decode_error(delta_with({0, 1, 2}, {1, 2, 3}, 100), small), std::error_code{});
}

TEST(FingerprintDamage, DeltaRankAtOrPastTheBaseOrFingerprintPastTheUniverseIsBadEncoding) {
  // Entries 200, one rank, no additions: B = 201.
  EXPECT_EQ(decode_error(delta_with({200}, {}, 200)), std::error_code{});
  EXPECT_EQ(decode_error(delta_with({201}, {}, 200)), ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(delta_with({3, 200}, {}, 199)), std::error_code{});
  EXPECT_EQ(decode_error(delta_with({3, 201}, {}, 199)), ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(delta_with({}, {kUniverse - 1, kUniverse - 1}, 200)), std::error_code{});
  EXPECT_EQ(decode_error(delta_with({}, {kUniverse}, 200)), ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(delta_with({}, {}, 200)), std::error_code{});
}

TEST(FingerprintDamage, PaddingAndTrailingBitsMustBeZero) {
  for (const std::string& message : {fp_full(), fp_delta()}) {
    EXPECT_EQ(decode_error(resign(message, [](Parts& p) { p.payload.push_back('\0'); })),
              ProtocolErrc::bad_encoding);
  }
  // Three codes of r = 6 take 21 bits, two ranks (r = 3) and one addition
  // (r = 5) 14: the top bits of the last byte are padding.
  const std::string full = resign(fp_full(), [](Parts& p) {
    p.header.rice_parameter = 6;
    p.header.payload_count = p.header.entries = 3;
    p.payload = full_payload({1, 2, 3}, 6);
  });
  const std::string delta = delta_with({1, 2}, {7}, 199);
  for (const std::string& message : {full, delta}) {
    ASSERT_EQ(decode_error(message), std::error_code{});
    EXPECT_EQ(decode_error(resign(message, [](Parts& q) { q.payload.back() |= '\x80'; })),
              ProtocolErrc::bad_encoding);
  }
}

// Random payloads, counts and parameters behind a valid tag: the decoder
// fails cleanly or decodes a message within its bounds, never reading out of
// bounds (ASan) or overflowing (UBSan).
TEST(FingerprintDamage, RandomSignedPayloadsNeverBreakTheDecoder) {
  std::mt19937_64 rng(17);
  const std::vector<std::string> bases{fp_full(), fp_delta()};
  int decoded = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string message = resign(bases[i % 2], [&](Parts& p) {
      p.header.rice_parameter = static_cast<std::uint8_t>(rng() % 14);
      p.header.m = 1 + rng() % 3000;
      p.header.payload_count = rng() % 40;
      p.header.entries = i % 4 < 2 ? p.header.payload_count : rng() % 60;
      p.payload.resize(rng() % 64);
      for (char& c : p.payload) c = static_cast<char>(rng() & (rng() % 2 == 0 ? 0xFF : 0x11));
      if (i % 2 == 1 && p.payload.size() >= 9) {
        p.payload[0] = static_cast<char>(rng() % (p.header.payload_count + 2));
        for (int b = 1; b < 8; ++b) p.payload[b] = 0;
        p.payload[8] = static_cast<char>(rng() % 12);
      }
    });
    auto r = decode(message, secret_for_known_nodes());
    if (!r.ok()) continue;
    ++decoded;
    const auto& f = r->fingerprints;
    for (std::uint64_t v : f.added) EXPECT_LT(v, r->info.params.m);
    EXPECT_TRUE(std::is_sorted(f.added.begin(), f.added.end()));
    if (r->kind == MessageKind::fingerprint_full) {
      EXPECT_EQ(f.added.size(), r->info.entries);
      EXPECT_TRUE(f.removed_ranks.empty());
    } else {
      EXPECT_FALSE(check_fingerprint_delta(r->info, r->base_sequence, f));
    }
  }
  RecordProperty("decoded", decoded);
  EXPECT_GT(decoded, 0);
}

}  // namespace
}  // namespace sumcache::protocol
