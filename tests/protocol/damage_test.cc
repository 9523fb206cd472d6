#include <gtest/gtest.h>

#include <random>

#include "protocol/bit_writer.h"
#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/protocol_error.h"
#include "protocol/rice_code.h"
#include "tests/protocol/golden_messages.h"
#include "tests/protocol/protocol_test_util.h"

namespace sumcache::protocol {
namespace {

using testing::info_for;
using testing::kSecret;
using testing::Parts;
using testing::random_bits;
using testing::resign;
using testing::secret_for_known_nodes;

std::error_code decode_error(std::string_view bytes, const DecodeLimits& limits = {}) {
  auto r = decode(bytes, secret_for_known_nodes(), limits);
  return r.ok() ? std::error_code{} : r.error();
}

std::vector<std::string> sample_messages() {
  std::vector<std::string> out;
  for (const auto& golden : testing::golden_messages()) {
    auto msg = golden.message;
    msg.info.node_id = "node-a";
    out.push_back(testing::encode_message(msg, kSecret));
  }
  return out;
}

std::string sparse_full() {
  const auto bits = random_bits(4000, 1, 0.02, 4);
  return encode_full(info_for(bits, 8), bits, kSecret).value();
}

std::string delta_message() {
  const auto bits = random_bits(4000, 1, 0, 4);
  const std::vector<filters::BitChange> changes{{1, true}, {50, false}, {3999, true}};
  return encode_delta(info_for(bits, 8), 7, changes, kSecret).value();
}

TEST(Damage, EveryTruncationOfEveryKindIsRejectedAsTruncated) {
  for (const std::string& message : sample_messages()) {
    ASSERT_TRUE(decode(message, secret_for_known_nodes()).ok());
    for (std::size_t n = 0; n < message.size(); ++n) {
      ASSERT_EQ(decode_error(message.substr(0, n)), ProtocolErrc::truncated) << n;
    }
  }
}

TEST(Damage, EveryFlippedByteIsRejectedAndPastTheHeaderAsBadTag) {
  for (const std::string& message : sample_messages()) {
    const std::size_t signed_end = message.size();
    for (std::size_t i = 0; i < signed_end; ++i) {
      for (unsigned mask : {0x01U, 0x80U, 0xFFU}) {
        std::string damaged = message;
        damaged[i] = static_cast<char>(damaged[i] ^ mask);
        const auto ec = decode_error(damaged);
        ASSERT_TRUE(ec) << "byte " << i << " mask " << mask;
        // Past the node id, only the tag can notice; the node id may also
        // turn unknown or unprintable.
        if (i >= kHeaderBytes + 6) {
          ASSERT_EQ(ec, ProtocolErrc::bad_tag) << "byte " << i;
        }
      }
    }
  }
}

TEST(Damage, WrongSecretIsBadTag) {
  const std::string message = sparse_full();
  auto other_secret = [](std::string_view) -> std::optional<std::string> { return "not-it"; };
  EXPECT_EQ(decode(message, other_secret).error(), ProtocolErrc::bad_tag);
}

TEST(Damage, UnknownNodeIsRejectedBeforeTheTag) {
  const std::string message = resign(sparse_full(), [](Parts& p) { p.node_id = "node-z"; });
  EXPECT_EQ(decode_error(message), ProtocolErrc::unknown_node);
  EXPECT_EQ(decode(sparse_full(), SecretLookup{}).error(), ProtocolErrc::unknown_node);
}

TEST(Damage, NodeIdOutsideItsAlphabetOrLengthIsBadEncoding) {
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.node_id = "node a"; })),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.node_id = std::string(65, 'a'); })),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.node_id.clear(); })),
            ProtocolErrc::bad_encoding);
}

TEST(Damage, MinVersionAboveOursIsUnsupported) {
  // Unsigned on purpose: the version check comes before the tag.
  std::string message = sparse_full();
  message[6] = static_cast<char>(kVersion + 1);
  EXPECT_EQ(decode_error(message), ProtocolErrc::unsupported_version);
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.header.version = 0; })),
            ProtocolErrc::unsupported_version);
  EXPECT_EQ(decode_error(resign(sparse_full(),
                                [](Parts& p) {
                                  p.header.version = 1;
                                  p.header.min_version = 0;
                                })),
            std::error_code{});
}

TEST(Damage, NewerVersionWithAppendedHeaderFieldsIsReadWhenItsMinimumIsOurs) {
  Parts p = testing::split(sparse_full());
  p.header.version = kVersion + 3;
  p.header.header_bytes = kHeaderBytes + 16;
  const std::string message = testing::sign(p, std::string(16, '\x7f'));
  auto decoded = decode(message, secret_for_known_nodes());
  ASSERT_TRUE(decoded.ok()) << decoded.error().message();
  EXPECT_EQ(decoded->version, kVersion + 3);
  EXPECT_EQ(*decoded->bits, random_bits(4000, 1, 0.02, 4));
}

TEST(Damage, BadMagicAndTrailingBytesAreRejected) {
  std::string message = sparse_full();
  message[0] = 'X';
  EXPECT_EQ(decode_error(message), ProtocolErrc::bad_magic);
  EXPECT_EQ(decode_error(sparse_full() + '\0'), ProtocolErrc::inconsistent_sizes);
}

TEST(Damage, MOrKOverTheirCapsIsOverCap) {
  DecodeLimits small;
  small.max_m = 3999;
  EXPECT_EQ(decode_error(sparse_full(), small), ProtocolErrc::over_cap);
  small = {};
  small.max_k = 0;
  EXPECT_EQ(decode_error(sparse_full(), small), ProtocolErrc::over_cap);
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.header.k = 33; })),
            ProtocolErrc::over_cap);
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.header.m = (1ULL << 34) + 1; })),
            ProtocolErrc::over_cap);
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.header.m = 0; })),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.header.k = 0; })),
            ProtocolErrc::bad_encoding);
}

TEST(Damage, HugeDeclaredSizesAreRefusedBeforeAllocating) {
  // Each of these would ask for gigabytes if a size were trusted.
  EXPECT_EQ(decode_error(resign(
                sparse_full(), [](Parts& p) { p.header.payload_bytes = 1ULL << 62; }, false)),
            ProtocolErrc::over_cap);
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.header.m = 1ULL << 62; })),
            ProtocolErrc::over_cap);
  EXPECT_EQ(
      decode_error(resign(sparse_full(), [](Parts& p) { p.header.payload_count = 1ULL << 40; })),
      ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(
      decode_error(resign(delta_message(), [](Parts& p) { p.header.payload_count = 1ULL << 23; })),
      ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(decode_error(resign(delta_message(),
                                [](Parts& p) {
                                  p.header.m = 1ULL << 33;
                                  p.header.payload_count = 1ULL << 23;
                                })),
            ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(
      decode_error(resign(delta_message(), [](Parts& p) { p.header.payload_count = 1ULL << 60; })),
      ProtocolErrc::over_cap);
  DecodeLimits small;
  small.max_message_bytes = 100;
  EXPECT_EQ(decode_error(sparse_full(), small), ProtocolErrc::over_cap);
}

TEST(Damage, HeaderSizeOutsideItsBoundsIsRejected) {
  Parts p = testing::split(sparse_full());
  p.header.header_bytes = kHeaderBytes - 1;
  EXPECT_EQ(decode_error(testing::sign(p)), ProtocolErrc::inconsistent_sizes);
  p.header.header_bytes = kMaxHeaderBytes + 1;
  EXPECT_EQ(decode_error(testing::sign(p, std::string(kMaxHeaderBytes + 1 - kHeaderBytes, '\0'))),
            ProtocolErrc::over_cap);
}

TEST(Damage, PayloadCountInconsistentWithLengthIsRejected) {
  Parts raw = testing::split(
      encode_full(info_for(random_bits(2000, 4, 0.5, 1)), random_bits(2000, 4, 0.5, 1), kSecret)
          .value());
  ASSERT_EQ(raw.header.compression, 0);
  raw.header.payload_count = 1999;
  EXPECT_EQ(decode_error(testing::sign(raw)), ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(decode_error(resign(testing::sign(raw),
                                [](Parts& p) {
                                  p.header.payload_count = p.header.m;
                                  p.payload.pop_back();
                                })),
            ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.header.payload_count = 4001; })),
            ProtocolErrc::inconsistent_sizes);
  // One code more than the payload holds, then one fewer than it holds.
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.header.payload_count += 1; })),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.header.payload_count -= 1; })),
            ProtocolErrc::bad_encoding);
  // Three changes fill 40 bits at r = 9; four need at least 44.
  EXPECT_EQ(decode_error(resign(delta_message(), [](Parts& p) { p.header.payload_count = 4; })),
            ProtocolErrc::inconsistent_sizes);
  EXPECT_EQ(decode_error(resign(delta_message(), [](Parts& p) { p.header.payload_count = 2; })),
            ProtocolErrc::bad_encoding);
}

std::string delta_payload(const std::vector<std::pair<std::uint64_t, bool>>& gaps, unsigned r) {
  std::string out;
  BitWriter w(out);
  for (const auto& [gap, value] : gaps) {
    put_rice(w, gap, r);
    w.put(value ? 1 : 0, 1);
  }
  w.finish();
  return out;
}

TEST(Damage, DeltaPositionAtOrPastMIsBadEncoding) {
  // Gaps cannot express a position that is not ascending; past m they can.
  const auto with_gaps = [](std::vector<std::pair<std::uint64_t, bool>> gaps) {
    return resign(delta_message(), [&](Parts& p) {
      p.header.rice_parameter = 4;
      p.header.payload_count = gaps.size();
      p.payload = delta_payload(gaps, 4);
    });
  };
  EXPECT_EQ(decode_error(with_gaps({{3999, true}})), std::error_code{});
  EXPECT_EQ(decode_error(with_gaps({{4000, true}})), ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(with_gaps({{3998, true}, {0, false}})), std::error_code{});
  EXPECT_EQ(decode_error(with_gaps({{3999, true}, {0, false}})), ProtocolErrc::bad_encoding);
}

TEST(Damage, PaddingAndTrailingPayloadBitsMustBeZero) {
  EXPECT_EQ(decode_error(resign(delta_message(), [](Parts& p) { p.payload.back() |= '\x80'; })),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(resign(delta_message(), [](Parts& p) { p.payload.push_back('\0'); })),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(decode_error(resign(sparse_full(), [](Parts& p) { p.payload.push_back('\0'); })),
            ProtocolErrc::bad_encoding);
}

TEST(Damage, RawBitsPastMAreBadEncoding) {
  const auto bits = random_bits(2001, 4, 0.5, 3);
  const std::string message = encode_full(info_for(bits), bits, kSecret).value();
  ASSERT_TRUE(decode(message, secret_for_known_nodes()).ok());
  EXPECT_EQ(decode_error(resign(message, [](Parts& p) { p.payload.back() |= '\x02'; })),
            ProtocolErrc::bad_encoding);
}

TEST(Damage, UnknownOrContradictoryFieldsAreRejected) {
  const auto edited = [](std::string_view message, void (*edit)(Parts&)) {
    return decode_error(resign(message, edit));
  };
  EXPECT_EQ(edited(sparse_full(), [](Parts& p) { p.header.hash_id = 9; }),
            ProtocolErrc::unknown_hash);
  EXPECT_EQ(edited(sparse_full(),
                   [](Parts& p) {
                     p.header.hash_id = 2;  // md5 takes no seed
                     p.header.seed = 1;
                   }),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(edited(sparse_full(), [](Parts& p) { p.header.kind = 3; }), ProtocolErrc::bad_encoding);
  EXPECT_EQ(edited(sparse_full(), [](Parts& p) { p.header.compression = 2; }),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(edited(sparse_full(), [](Parts& p) { p.header.flags = 2; }),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(edited(sparse_full(), [](Parts& p) { p.header.rice_parameter = 64; }),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(edited(sparse_full(), [](Parts& p) { p.header.base_sequence = 1; }),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(edited(delta_message(), [](Parts& p) { p.header.compression = 0; }),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(edited(delta_message(), [](Parts& p) { p.header.flags = kFlagCodesZeros; }),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(edited(delta_message(), [](Parts& p) { p.header.sequence = p.header.base_sequence; }),
            ProtocolErrc::bad_encoding);
}

// Random payloads and counts behind a valid tag: the decoder must fail
// cleanly or decode, never read out of bounds (ASan) or overflow (UBSan).
TEST(Damage, RandomSignedPayloadsNeverBreakTheDecoder) {
  std::mt19937_64 rng(99);
  const std::vector<std::string> bases{sparse_full(), delta_message()};
  int decoded = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string message = resign(bases[i % 2], [&](Parts& p) {
      p.header.rice_parameter = static_cast<std::uint8_t>(rng() % 14);
      p.header.flags = static_cast<std::uint8_t>(rng() % 2) & (i % 2 == 0 ? 1 : 0);
      p.header.m = 1 + rng() % 5000;
      p.payload.resize(rng() % 64);
      for (char& c : p.payload) c = static_cast<char>(rng() & (rng() % 2 == 0 ? 0xFF : 0x11));
      p.header.payload_count = rng() % 40;
    });
    auto r = decode(message, secret_for_known_nodes());
    if (r.ok()) {
      ++decoded;
      if (r->kind == MessageKind::full) {
        EXPECT_EQ(r->bits->params().m, r->info.params.m);
      }
      for (const auto& c : r->changes) {
        EXPECT_LT(c.position, r->info.params.m);
      }
    }
  }
  RecordProperty("decoded", decoded);
}

}  // namespace
}  // namespace sumcache::protocol
