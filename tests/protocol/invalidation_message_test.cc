#include "protocol/invalidation_message.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <set>

#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/invalidation_error.h"
#include "protocol/invalidation_header.h"
#include "protocol/protocol_error.h"
#include "tests/protocol/invalidation_test_util.h"

namespace sumcache::protocol {
namespace {

using testing::entry_bytes;
using testing::kSecret;
using testing::raw_ack;
using testing::raw_batch;
using testing::RawMessage;
using testing::sample_ack;
using testing::sample_batch;
using testing::seal_raw;
using testing::secret_for_known_nodes;

constexpr std::uint64_t kMaxSeq = std::numeric_limits<std::uint64_t>::max();

std::error_code batch_error(std::string_view bytes) {
  auto r = decode_invalidations(bytes, secret_for_known_nodes());
  return r.ok() ? std::error_code{} : r.error();
}

std::error_code ack_error(std::string_view bytes) {
  auto r = decode_invalidation_ack(bytes, secret_for_known_nodes());
  return r.ok() ? std::error_code{} : r.error();
}

// A batch of url entries whose values have these lengths.
InvalidationBatch batch_of_lengths(std::initializer_list<std::size_t> lengths) {
  InvalidationBatch batch = sample_batch();
  batch.entries.clear();
  for (std::size_t length : lengths) {
    batch.entries.push_back({InvalidationKind::url, 1, std::string(length, 'k')});
  }
  return batch;
}

TEST(InvalidationRoundTrip, BatchOfEveryKindDecodesToTheSameBatch) {
  const InvalidationBatch batch = sample_batch();
  const std::string wire = encode_invalidations(batch, kSecret).value();
  ASSERT_FALSE(wire.empty());
  EXPECT_EQ(wire.size(), kInvalidationHeaderBytes + 6 + 3 * kInvalidationEntryHeaderBytes + 24 +
                             10 + 26 + kTagBytes);
  auto back = decode_invalidations(wire, secret_for_known_nodes());
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, batch);
  EXPECT_EQ(back->last_seq(), 9U);
}

TEST(InvalidationRoundTrip, MissedFlagAndItsTimeSurviveIncludingZero) {
  for (std::uint64_t until : {std::uint64_t{0}, std::uint64_t{1'700'000'000'000}, kMaxSeq}) {
    InvalidationBatch batch = sample_batch();
    batch.missed_until_ms = until;
    auto back = decode_invalidations(encode_invalidations(batch, kSecret).value(),
                                     secret_for_known_nodes());
    ASSERT_TRUE(back.ok()) << back.error().message();
    ASSERT_TRUE(back->missed_until_ms.has_value());
    EXPECT_EQ(*back->missed_until_ms, until);
  }
  auto plain = decode_invalidations(encode_invalidations(sample_batch(), kSecret).value(),
                                    secret_for_known_nodes());
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->missed_until_ms.has_value());
}

TEST(InvalidationRoundTrip, AckDecodesToTheSameAck) {
  for (std::uint64_t through : {std::uint64_t{0}, std::uint64_t{9}, kMaxSeq}) {
    InvalidationAck ack = sample_ack();
    ack.acked_through = through;
    const std::string wire = encode_invalidation_ack(ack, kSecret).value();
    EXPECT_EQ(wire.size(), kInvalidationHeaderBytes + 6 + 6 + kTagBytes);
    auto back = decode_invalidation_ack(wire, secret_for_known_nodes());
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_EQ(*back, ack);
  }
}

TEST(InvalidationRoundTrip, EveryBoundIsReachable) {
  // 256 entries; a url and a prefix of 8 KiB, a tag of 1 KiB; values using
  // the whole byte set; the highest sequences; times 0 and 2^64 - 1.
  InvalidationBatch many = batch_of_lengths({});
  for (int i = 0; i < 256; ++i) many.entries.push_back({InvalidationKind::tag, 0, "t"});
  many.first_seq = kMaxSeq - 255;
  many.entries[0].value = "!~\x80\xff";
  many.entries[1].time_ms = kMaxSeq;
  auto back =
      decode_invalidations(encode_invalidations(many, kSecret).value(), secret_for_known_nodes());
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, many);
  EXPECT_EQ(back->last_seq(), kMaxSeq);

  InvalidationBatch longest = sample_batch();
  longest.entries = {{InvalidationKind::url, 1, std::string(kMaxInvalidationKeyBytes, 'u')},
                     {InvalidationKind::prefix, 2, std::string(kMaxInvalidationKeyBytes, 'p')},
                     {InvalidationKind::tag, 3, std::string(kMaxInvalidationTagBytes, 't')}};
  back = decode_invalidations(encode_invalidations(longest, kSecret).value(),
                              secret_for_known_nodes());
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, longest);
}

TEST(InvalidationRoundTrip, PayloadOfExactly256KiBIsTheLargestMessage) {
  // 31 entries of the longest key take 254,293 bytes; one of 7,840 fills 262,144.
  InvalidationBatch full = batch_of_lengths({});
  for (int i = 0; i < 31; ++i) {
    full.entries.push_back({InvalidationKind::url, 1, std::string(kMaxInvalidationKeyBytes, 'k')});
  }
  full.entries.push_back({InvalidationKind::url, 1, std::string(7840, 'k')});
  std::size_t payload = 0;
  for (const auto& e : full.entries) payload += invalidation_entry_bytes(e);
  ASSERT_EQ(payload, kMaxInvalidationPayloadBytes);
  full.node_id = std::string(kMaxNodeIdBytes, 'n');
  const std::string wire = encode_invalidations(full, kSecret).value();
  ASSERT_FALSE(wire.empty());
  EXPECT_EQ(wire.size(),
            kMaxInvalidationMessageBytes - (kMaxHeaderBytes - kInvalidationHeaderBytes));
  auto back = decode_invalidations(wire, [](std::string_view) { return std::string(kSecret); });
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, full);

  full.entries.back().value += 'k';  // one byte over
  EXPECT_EQ(check_invalidations(full), InvalidationErrc::invalid_message);
  EXPECT_EQ(encode_invalidations(full, kSecret).error(), InvalidationErrc::invalid_message);
}

TEST(InvalidationBounds, MessageBoundCoversTheLargestHeaderIdPayloadAndTag) {
  EXPECT_EQ(kMaxInvalidationMessageBytes, 1024U + 64U + 262'144U + 32U);
}

TEST(InvalidationEncode, ErrorsNameTheirCause) {
  InvalidationBatch batch = sample_batch();
  batch.node_id = "";
  const auto refused = encode_invalidations(batch, kSecret);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), InvalidationErrc::invalid_message);
  EXPECT_EQ(std::error_code(InvalidationErrc::signing_failed).message(),
            "invalidation message could not be signed (HMAC-SHA256 failed)");
}

TEST(InvalidationEncode, RefusesWhatTheFormatCannotCarry) {
  const auto refused = [](const std::function<void(InvalidationBatch&)>& edit) {
    InvalidationBatch batch = sample_batch();
    edit(batch);
    return check_invalidations(batch) == InvalidationErrc::invalid_message &&
           encode_invalidations(batch, kSecret).error() == InvalidationErrc::invalid_message;
  };
  EXPECT_FALSE(refused([](InvalidationBatch&) {}));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.node_id = ""; }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.node_id = "node a"; }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.node_id = std::string(65, 'n'); }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.entries.clear(); }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) {
    const Invalidation first = b.entries[0];
    b.entries.resize(257, first);
  }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.first_seq = 0; }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.first_seq = kMaxSeq - 1; }));  // 3 entries
  EXPECT_FALSE(refused([](InvalidationBatch& b) { b.first_seq = kMaxSeq - 2; }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.entries[0].value.clear(); }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.entries[0].value = "http://x/a b"; }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.entries[0].value = "http://x/\r\n"; }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.entries[0].value = "http://x/\x7f"; }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.entries[0].value = std::string(1, '\0'); }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) {
    b.entries[0].value = std::string(kMaxInvalidationKeyBytes + 1, 'u');
  }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) {
    b.entries[1].value = std::string(kMaxInvalidationTagBytes + 1, 't');
  }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) {
    b.entries[2].value = std::string(kMaxInvalidationKeyBytes + 1, 'p');
  }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.entries[0].kind = InvalidationKind{0}; }));
  EXPECT_TRUE(refused([](InvalidationBatch& b) { b.entries[0].kind = InvalidationKind{4}; }));
}

TEST(InvalidationEncode, AckNeedsTwoValidNodeIds) {
  InvalidationAck ack = sample_ack();
  EXPECT_FALSE(check_invalidation_ack(ack));
  ack.acked_node = "";
  EXPECT_EQ(check_invalidation_ack(ack), InvalidationErrc::invalid_message);
  EXPECT_EQ(encode_invalidation_ack(ack, kSecret).error(), InvalidationErrc::invalid_message);
  ack = sample_ack();
  ack.node_id = "n/b";
  EXPECT_EQ(encode_invalidation_ack(ack, kSecret).error(), InvalidationErrc::invalid_message);
}

TEST(InvalidationDecode, EveryTruncationIsRefusedAsTruncated) {
  for (const std::string& wire : {encode_invalidations(sample_batch(), kSecret).value(),
                                  encode_invalidation_ack(sample_ack(), kSecret).value()}) {
    ASSERT_FALSE(wire.empty());
    for (std::size_t n = 0; n < wire.size(); ++n) {
      ASSERT_EQ(batch_error(wire.substr(0, n)), InvalidationErrc::truncated) << n;
      ASSERT_EQ(ack_error(wire.substr(0, n)), InvalidationErrc::truncated) << n;
    }
  }
}

TEST(InvalidationDecode, TrailingBytesAfterTheTagAreRefused) {
  std::string wire = encode_invalidations(sample_batch(), kSecret).value();
  EXPECT_EQ(batch_error(wire + '\0'), InvalidationErrc::inconsistent_sizes);
  std::string ack = encode_invalidation_ack(sample_ack(), kSecret).value();
  EXPECT_EQ(ack_error(ack + "x"), InvalidationErrc::inconsistent_sizes);
}

TEST(InvalidationDecode, EveryFlippedByteIsRefusedAndPastTheNodeIdAsBadTag) {
  const std::string wire = encode_invalidations(sample_batch(), kSecret).value();
  for (std::size_t i = 0; i < wire.size(); ++i) {
    std::string damaged = wire;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x10);
    const auto ec = batch_error(damaged);
    ASSERT_TRUE(ec) << i;
    if (i >= kInvalidationHeaderBytes + 6) {  // past the header and the node id
      EXPECT_EQ(ec, InvalidationErrc::bad_tag) << i;
    }
  }
}

TEST(InvalidationDecode, LargerThanTheBoundIsRefusedBeforeAnythingElse) {
  EXPECT_EQ(batch_error(std::string(kMaxInvalidationMessageBytes + 1, 'S')),
            InvalidationErrc::over_cap);
  EXPECT_EQ(ack_error(std::string(kMaxInvalidationMessageBytes + 1, 'S')),
            InvalidationErrc::over_cap);
}

TEST(InvalidationDecode, SummaryAndInvalidationMessagesAreToldApartByMagic) {
  const auto bits = testing::random_bits(100, 1, 0.1, 1);
  const std::string summary = encode_full(testing::info_for(bits), bits, kSecret).value();
  EXPECT_EQ(batch_error(summary), InvalidationErrc::bad_magic);
  EXPECT_EQ(ack_error(summary), InvalidationErrc::bad_magic);
  auto as_summary =
      decode(encode_invalidations(sample_batch(), kSecret).value(), secret_for_known_nodes());
  ASSERT_FALSE(as_summary.ok());
  EXPECT_EQ(as_summary.error(), ProtocolErrc::bad_magic);
}

TEST(InvalidationDecode, VersionsOutsideWhatWeReadAreRefused) {
  RawMessage raw = raw_batch();
  ASSERT_FALSE(batch_error(seal_raw(raw)));
  raw.header.min_version = 2;
  raw.header.version = 2;
  EXPECT_EQ(batch_error(seal_raw(raw)), InvalidationErrc::unsupported_version);
  raw.header.min_version = 1;
  raw.header.version = 0;
  EXPECT_EQ(batch_error(seal_raw(raw)), InvalidationErrc::unsupported_version);
  raw.header.version = 2;  // a newer writer an old reader can read
  EXPECT_FALSE(batch_error(seal_raw(raw)));
}

TEST(InvalidationDecode, HeaderSizesAreCheckedBeforeTheTag) {
  RawMessage raw = raw_batch();
  raw.header.header_bytes = kInvalidationHeaderBytes - 1;
  EXPECT_EQ(batch_error(seal_raw(raw)), InvalidationErrc::inconsistent_sizes);
  raw.header.header_bytes = kMaxHeaderBytes + 1;
  EXPECT_EQ(batch_error(seal_raw(raw, std::string(kMaxHeaderBytes + 1 - 44, '\0'))),
            InvalidationErrc::over_cap);
  raw = raw_batch();
  raw.node_id = "";
  EXPECT_EQ(batch_error(seal_raw(raw)), InvalidationErrc::bad_encoding);
  raw.node_id = std::string(kMaxNodeIdBytes + 1, 'n');
  EXPECT_EQ(batch_error(seal_raw(raw)), InvalidationErrc::bad_encoding);
  raw = raw_batch();
  raw.header.node_id_bytes = static_cast<std::uint8_t>(raw.node_id.size());
  raw.header.payload_bytes = kMaxInvalidationPayloadBytes + 1;
  EXPECT_EQ(batch_error(seal_raw(raw, {}, false)), InvalidationErrc::over_cap);
  raw.header.payload_bytes = static_cast<std::uint32_t>(raw.payload.size() + 1);
  EXPECT_EQ(batch_error(seal_raw(raw, {}, false)), InvalidationErrc::truncated);
  raw.header.payload_bytes = static_cast<std::uint32_t>(raw.payload.size() - 1);
  EXPECT_EQ(batch_error(seal_raw(raw, {}, false)), InvalidationErrc::inconsistent_sizes);
}

TEST(InvalidationDecode, ALaterVersionsLongerHeaderIsSkipped) {
  RawMessage raw = raw_batch();
  raw.header.header_bytes = kInvalidationHeaderBytes + 16;
  auto back = decode_invalidations(seal_raw(raw, std::string(16, 'x')), secret_for_known_nodes());
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->node_id, "node-a");
  EXPECT_EQ(back->entries.size(), 2U);
}

TEST(InvalidationDecode, SignerMustBeAKnownNodeWithTheRightSecret) {
  RawMessage raw = raw_batch();
  raw.node_id = "node-c";
  EXPECT_EQ(batch_error(seal_raw(raw)), InvalidationErrc::unknown_node);
  raw.node_id = "node a";
  EXPECT_EQ(batch_error(seal_raw(raw)), InvalidationErrc::bad_encoding);
  raw.node_id = "node-a";
  EXPECT_EQ(batch_error(seal_raw(raw, {}, true, "another-secret")), InvalidationErrc::bad_tag);
  EXPECT_EQ(ack_error(seal_raw(raw_ack(), {}, true, "another-secret")), InvalidationErrc::bad_tag);
  auto no_lookup = decode_invalidations(seal_raw(raw_batch()), SecretLookup{});
  ASSERT_FALSE(no_lookup.ok());
  EXPECT_EQ(no_lookup.error(), InvalidationErrc::unknown_node);
}

TEST(InvalidationDecode, KindMustBeKnownAndTheOneAskedFor) {
  const std::string batch = encode_invalidations(sample_batch(), kSecret).value();
  const std::string ack = encode_invalidation_ack(sample_ack(), kSecret).value();
  EXPECT_EQ(ack_error(batch), InvalidationErrc::wrong_kind);
  EXPECT_EQ(batch_error(ack), InvalidationErrc::wrong_kind);
  for (std::uint8_t kind : {0, 1, 2, 5, 255}) {
    RawMessage raw = raw_batch();
    raw.header.kind = kind;
    EXPECT_EQ(batch_error(seal_raw(raw)), InvalidationErrc::bad_encoding) << int{kind};
    EXPECT_EQ(ack_error(seal_raw(raw)), InvalidationErrc::bad_encoding) << int{kind};
  }
}

TEST(InvalidationDecode, AckFieldsOfABatchAreRefused) {
  ASSERT_FALSE(ack_error(seal_raw(raw_ack())));
  const auto refused = [](const std::function<void(RawMessage&)>& edit) {
    RawMessage raw = raw_ack();
    edit(raw);
    return ack_error(seal_raw(raw));
  };
  EXPECT_EQ(refused([](RawMessage& r) { r.header.count = 1; }), InvalidationErrc::bad_encoding);
  EXPECT_EQ(refused([](RawMessage& r) { r.header.flags = kFlagMissed; }),
            InvalidationErrc::bad_encoding);
  EXPECT_EQ(refused([](RawMessage& r) { r.header.missed_until_ms = 1; }),
            InvalidationErrc::bad_encoding);
  EXPECT_EQ(refused([](RawMessage& r) { r.payload = ""; }), InvalidationErrc::bad_encoding);
  EXPECT_EQ(refused([](RawMessage& r) { r.payload = "node a"; }), InvalidationErrc::bad_encoding);
  EXPECT_EQ(refused([](RawMessage& r) { r.payload = std::string(65, 'n'); }),
            InvalidationErrc::bad_encoding);
}

TEST(InvalidationDecode, BatchHeaderFieldsAreCheckedBeforeTheEntries) {
  const auto refused = [](const std::function<void(RawMessage&)>& edit) {
    RawMessage raw = raw_batch();
    edit(raw);
    return batch_error(seal_raw(raw));
  };
  EXPECT_FALSE(refused([](RawMessage&) {}));
  EXPECT_FALSE(refused([](RawMessage& r) { r.header.flags = kFlagMissed; }));
  EXPECT_EQ(refused([](RawMessage& r) { r.header.flags = 2; }), InvalidationErrc::bad_encoding);
  EXPECT_EQ(refused([](RawMessage& r) { r.header.flags = 0x8001; }),
            InvalidationErrc::bad_encoding);
  EXPECT_EQ(refused([](RawMessage& r) { r.header.missed_until_ms = 1; }),
            InvalidationErrc::bad_encoding);
  EXPECT_EQ(refused([](RawMessage& r) { r.header.count = 0; }), InvalidationErrc::bad_encoding);
  EXPECT_EQ(refused([](RawMessage& r) { r.header.sequence = 0; }), InvalidationErrc::bad_encoding);
  EXPECT_EQ(refused([](RawMessage& r) { r.header.sequence = kMaxSeq; }),  // 2 entries
            InvalidationErrc::bad_encoding);
  EXPECT_FALSE(refused([](RawMessage& r) { r.header.sequence = kMaxSeq - 1; }));
  EXPECT_EQ(refused([](RawMessage& r) { r.header.count = 257; }), InvalidationErrc::over_cap);
  // 4 entries need 44 bytes at least; the payload holds two entries in 42.
  EXPECT_EQ(refused([](RawMessage& r) { r.header.count = 4; }),
            InvalidationErrc::inconsistent_sizes);
}

TEST(InvalidationDecode, AcceptsAFullWidthCountOnlyUpToTheBound) {
  RawMessage raw = raw_batch(0);
  raw.header.count = 256;
  for (int i = 0; i < 256; ++i) raw.payload += entry_bytes(2, 0, "t");
  EXPECT_FALSE(batch_error(seal_raw(raw)));
  raw.header.count = 257;
  raw.payload += entry_bytes(2, 0, "t");
  EXPECT_EQ(batch_error(seal_raw(raw)), InvalidationErrc::over_cap);
}

TEST(InvalidationDecode, EntriesAreCheckedOneByOne) {
  const auto with_entries = [](std::size_t count, const std::string& payload) {
    RawMessage raw = raw_batch(0);
    raw.header.count = static_cast<std::uint16_t>(count);
    raw.payload = payload;
    return batch_error(seal_raw(raw));
  };
  const std::string ok = entry_bytes(1, 0, "http://x/");
  EXPECT_FALSE(with_entries(2, ok + ok));
  for (std::uint8_t kind : {0, 4, 255}) {
    EXPECT_EQ(with_entries(2, ok + entry_bytes(kind, 0, "v")), InvalidationErrc::bad_encoding);
  }
  EXPECT_EQ(with_entries(1, entry_bytes(1, 0, "") + "xxxxxxxxxxx"), InvalidationErrc::bad_encoding);
  for (const char* bad : {"a b", "a\tb", "a\nb", "\x7f", "\x1f"}) {
    EXPECT_EQ(with_entries(1, entry_bytes(3, 0, bad)), InvalidationErrc::bad_encoding) << bad;
  }
  EXPECT_EQ(with_entries(1, entry_bytes(1, 0, std::string("a\0b", 3))),
            InvalidationErrc::bad_encoding);
  EXPECT_FALSE(with_entries(1, entry_bytes(2, 0, "\x80\xff!~")));
  EXPECT_FALSE(with_entries(1, entry_bytes(1, 0, std::string(kMaxInvalidationKeyBytes, 'u'))));
  EXPECT_FALSE(with_entries(1, entry_bytes(3, 0, std::string(kMaxInvalidationKeyBytes, 'p'))));
  EXPECT_FALSE(with_entries(1, entry_bytes(2, 0, std::string(kMaxInvalidationTagBytes, 't'))));
  EXPECT_EQ(with_entries(1, entry_bytes(1, 0, std::string(kMaxInvalidationKeyBytes + 1, 'u'))),
            InvalidationErrc::over_cap);
  EXPECT_EQ(with_entries(1, entry_bytes(3, 0, std::string(kMaxInvalidationKeyBytes + 1, 'p'))),
            InvalidationErrc::over_cap);
  EXPECT_EQ(with_entries(1, entry_bytes(2, 0, std::string(kMaxInvalidationTagBytes + 1, 't'))),
            InvalidationErrc::over_cap);
  // A value that runs past the payload, and a second entry cut inside its fixed part.
  EXPECT_EQ(with_entries(1, entry_bytes(1, 0, "http://x/", 30) + std::string(5, 'x')),
            InvalidationErrc::inconsistent_sizes);
  EXPECT_EQ(with_entries(2, entry_bytes(1, 0, "http://x/y/z/w/v/u/t/s/r") + ok.substr(0, 10)),
            InvalidationErrc::inconsistent_sizes);
  EXPECT_EQ(with_entries(1, ok + "z"), InvalidationErrc::trailing_bytes);
  EXPECT_EQ(with_entries(1, ok + ok), InvalidationErrc::trailing_bytes);
}

TEST(InvalidationDecode, EntryFieldsAreLittleEndianAtTheirOffsets) {
  RawMessage raw = raw_batch(0);
  raw.header.count = 1;
  raw.header.sequence = 0x0102030405060708;
  raw.header.epoch = 0x1112131415161718;
  raw.payload = entry_bytes(2, 0x2122232425262728, "tag-1");
  auto back = decode_invalidations(seal_raw(raw), secret_for_known_nodes());
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->first_seq, 0x0102030405060708U);
  EXPECT_EQ(back->epoch, 0x1112131415161718U);
  ASSERT_EQ(back->entries.size(), 1U);
  EXPECT_EQ(back->entries[0], (Invalidation{InvalidationKind::tag, 0x2122232425262728, "tag-1"}));
}

TEST(InvalidationErrors, EveryCodeHasItsOwnMessage) {
  std::set<std::string> seen;
  for (int e = 0; e <= static_cast<int>(InvalidationErrc::invalid_message); ++e) {
    const std::string message = make_error_code(static_cast<InvalidationErrc>(e)).message();
    EXPECT_FALSE(message.empty());
    EXPECT_TRUE(seen.insert(message).second) << message;
  }
  EXPECT_STREQ(invalidation_category().name(), "sumcache.invalidation");
}

}  // namespace
}  // namespace sumcache::protocol
