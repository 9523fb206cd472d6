// The peer listener's decisions before a body byte is read: which status for
// which head, and which fixed headers are refused.

#include "daemon/peer/summary_admission.h"

#include <gtest/gtest.h>

#include "daemon/peer/peer_http.h"
#include "filters/bloom_filter.h"
#include "filters/fingerprint.h"
#include "filters/fingerprint_directory.h"
#include "protocol/encode.h"
#include "protocol/invalidation_message.h"
#include "protocol/message_bounds.h"
#include "protocol/wire_header.h"

namespace sumcache::daemon {
namespace {

constexpr std::uint64_t kChanges = std::uint64_t{1} << 24;
const PeerLimits kPeer{true, 1 << 20};

SummaryHead post(std::optional<std::uint64_t> length, std::string_view node = "node-b") {
  SummaryHead h;
  h.method = beast::http::verb::post;
  h.target = kSummaryPath;
  h.node = node;
  h.content_length = length;
  return h;
}

TEST(CheckHead, AKnownPeerWithALengthInBoundsGoesOn) {
  EXPECT_FALSE(check_head(post(1000), kPeer));
  SummaryHead get = post(std::nullopt);
  get.method = beast::http::verb::get;
  EXPECT_FALSE(check_head(get, kPeer));
}

TEST(CheckHead, PathAndMethodComeFirst) {
  SummaryHead h = post(1000);
  h.target = "/other";
  EXPECT_EQ(check_head(h, {}).status, 404U);
  h = post(1000);
  h.method = beast::http::verb::put;
  EXPECT_EQ(check_head(h, kPeer).status, 405U);
  EXPECT_EQ(check_head(h, kPeer).reason, Refusal::route);
}

TEST(CheckHead, TheNodeMustBeNamedAndAPeer) {
  SummaryHead h = post(1000);
  h.node.reset();
  EXPECT_EQ(check_head(h, kPeer).status, 400U);
  h = post(1000, "bad id\n");
  EXPECT_EQ(check_head(h, kPeer).status, 400U);
  EXPECT_NE(check_head(h, kPeer).text.find("\"bad id\\x0a\""), std::string::npos);
  const Verdict unknown = check_head(post(1000, "node-z"), {});
  EXPECT_EQ(unknown.status, 403U);
  EXPECT_EQ(unknown.reason, Refusal::node);
  EXPECT_NE(unknown.text.find("\"node-z\""), std::string::npos) << unknown.text;
}

TEST(CheckHead, APostNeedsALengthWithinThePeersBound) {
  EXPECT_EQ(check_head(post(std::nullopt), kPeer).status, 411U);
  SummaryHead chunked = post(std::nullopt);
  chunked.transfer_encoding = true;
  EXPECT_EQ(check_head(chunked, kPeer).status, 411U);
  chunked.content_length = 1000;
  EXPECT_EQ(check_head(chunked, kPeer).status, 411U);
  EXPECT_EQ(check_head(post(10), kPeer).status, 400U);
  EXPECT_FALSE(check_head(post(1 << 20), kPeer));
  const Verdict over = check_head(post((1 << 20) + 1), kPeer);
  EXPECT_EQ(over.status, 413U);
  EXPECT_EQ(over.reason, Refusal::too_large);
  EXPECT_EQ(check_head(post(50'000'000), kPeer).status, 413U);
}

SummaryHead invalidations(std::optional<std::uint64_t> length, std::string_view node = "node-b") {
  SummaryHead h = post(length, node);
  h.target = kInvalidationsPath;
  return h;
}

TEST(CheckHead, InvalidationsArePostedOnly) {
  EXPECT_TRUE(is_invalidations(invalidations(100)));
  EXPECT_FALSE(is_invalidations(post(100)));
  EXPECT_FALSE(check_head(invalidations(100), kPeer));
  SummaryHead get = invalidations(std::nullopt);
  get.method = beast::http::verb::get;
  EXPECT_EQ(check_head(get, kPeer).status, 405U);
  EXPECT_EQ(check_head(get, kPeer).reason, Refusal::route);
}

TEST(CheckHead, InvalidationsComeFromAPeer) {
  EXPECT_EQ(check_head(invalidations(100), {}).status, 403U);
  EXPECT_EQ(check_head(invalidations(100, "bad id"), kPeer).status, 400U);
}

TEST(CheckHead, AnInvalidationBatchIsBoundedByItsFormatNotByThePeersSummaries) {
  EXPECT_EQ(check_head(invalidations(std::nullopt), kPeer).status, 411U);
  // A header (44 bytes), the node id and the tag at least.
  EXPECT_EQ(check_head(invalidations(44 + 6 + 31), kPeer).status, 400U);
  EXPECT_FALSE(check_head(invalidations(44 + 6 + 32), kPeer));
  // The summary bound of this peer (1 MiB here) does not apply; the format's does.
  const PeerLimits tiny{true, 100};
  EXPECT_FALSE(check_head(invalidations(protocol::kMaxInvalidationMessageBytes), tiny));
  const Verdict over = check_head(invalidations(protocol::kMaxInvalidationMessageBytes + 1), kPeer);
  EXPECT_EQ(over.status, 413U);
  EXPECT_EQ(over.reason, Refusal::too_large);
}

TEST(PrintableId, QuotesEscapesAndCuts) {
  EXPECT_EQ(printable_id("node-b"), "\"node-b\"");
  EXPECT_EQ(printable_id("a\"b\x01"), "\"a\\x22b\\x01\"");
  EXPECT_EQ(printable_id(std::string(100, 'x')), "\"" + std::string(64, 'x') + "\"...");
}

class FixedHeader : public ::testing::Test {
 protected:
  FixedHeader() {
    auto bits = *filters::BloomFilter::create({4096, 3});
    bits.set_bit(7, true);
    protocol::SummaryInfo info{"node-b", 1, 1, bits.params(), bits.hasher(), 1};
    message_ = protocol::encode_full(info, bits, "a-secret-of-16-bytes").value();
  }
  Verdict check(std::string_view first, std::uint64_t length, std::uint64_t max_m = 1 << 20,
                std::string_view node = "node-b") {
    return check_fixed_header(first, node, length, max_m, kChanges, facts_);
  }
  std::string message_;
  FixedHeaderFacts facts_;
};

TEST_F(FixedHeader, AConformingMessagePasses) {
  EXPECT_FALSE(check(message_.substr(0, kFixedHeaderBytes), message_.size()));
  EXPECT_EQ(facts_.header_bytes, protocol::kHeaderBytes);
  EXPECT_EQ(facts_.node_id_bytes, 6U);
  EXPECT_FALSE(check_message_node(message_.substr(84, 6), "node-b"));
}

TEST_F(FixedHeader, ZerosAreBadMagic) {
  const Verdict v = check(std::string(kFixedHeaderBytes, '\0'), 50'000'000);
  EXPECT_EQ(v.status, 400U);
  EXPECT_EQ(v.reason, Refusal::header);
  EXPECT_NE(v.text.find("bad magic"), std::string::npos);
}

TEST_F(FixedHeader, AnotherNodeOrOtherSizesAreRefused) {
  EXPECT_EQ(
      check(message_.substr(0, kFixedHeaderBytes), message_.size(), 1 << 20, "node-bb").status,
      400U);
  EXPECT_EQ(check_message_node("node-c", "node-b").status, 400U);
  EXPECT_EQ(check(message_.substr(0, kFixedHeaderBytes), message_.size() + 1).status, 400U);
  std::string bad_kind = message_.substr(0, kFixedHeaderBytes);
  bad_kind[10] = 9;
  EXPECT_EQ(check(bad_kind, message_.size()).status, 400U);
}

TEST_F(FixedHeader, AnMOverTheBoundOrAnOversizedPayloadIs413) {
  EXPECT_EQ(check(message_.substr(0, kFixedHeaderBytes), message_.size(), 4095).status, 413U);
  // A full that claims more payload than m/8 bytes.
  protocol::WireHeader h = protocol::read_header(message_);
  h.payload_bytes = protocol::full_payload_bound(h.m) + 1;
  std::string first;
  protocol::append_header(first, h);
  const std::uint64_t length = h.header_bytes + 6 + h.payload_bytes + protocol::kTagBytes;
  const Verdict v = check(first, length);
  EXPECT_EQ(v.status, 413U);
  EXPECT_EQ(v.reason, Refusal::too_large);
}

// A fingerprint summary's fixed header (docs/protocol.md, "Fingerprint
// summaries"): m is its universe, entries the set's size after the message.
std::string fingerprint_header(protocol::MessageKind kind, std::uint64_t universe,
                               std::uint64_t entries, std::uint64_t payload_bytes,
                               std::uint64_t& length) {
  protocol::WireHeader h;
  h.version = protocol::kVersion;
  h.min_version = protocol::kVersion;
  h.kind = static_cast<std::uint8_t>(kind);
  h.compression = static_cast<std::uint8_t>(protocol::Compression::rice_gaps);
  h.node_id_bytes = 6;
  h.k = 1;
  h.epoch = 1;
  h.sequence = 2;
  h.base_sequence = kind == protocol::MessageKind::fingerprint_delta ? 1 : 0;
  h.m = universe;
  h.entries = entries;
  h.payload_count = entries;
  h.payload_bytes = payload_bytes;
  std::string first;
  protocol::append_header(first, h);
  length = h.header_bytes + 6 + payload_bytes + protocol::kTagBytes;
  return first;
}

TEST_F(FixedHeader, AFingerprintSetsUniverseIsNotBoundByTheBloomCap) {
  // 10^6 URLs at p = 0.24%: U = 4.2 * 10^8, far over a Bloom filter's 2^20
  // here, in about 10.2 bits per URL on the wire.
  std::uint64_t length = 0;
  const std::string first = fingerprint_header(protocol::MessageKind::fingerprint_full, 417'701'000,
                                               1'000'000, 1'300'000, length);
  EXPECT_FALSE(check_fixed_header(first, "node-b", length, 1 << 20, kChanges, facts_, 1 << 20));
  std::uint64_t delta_length = 0;
  const std::string delta = fingerprint_header(protocol::MessageKind::fingerprint_delta,
                                               417'701'000, 1'000'000, 40'000, delta_length);
  EXPECT_FALSE(
      check_fixed_header(delta, "node-b", delta_length, 1 << 20, kChanges, facts_, 1 << 20));
}

TEST_F(FixedHeader, AFingerprintSetOverTheCapOrTheUniverseLimitIs413) {
  std::uint64_t length = 0;
  // One more fingerprint than cluster.peer_max_fingerprints lets this node hold.
  std::string first =
      fingerprint_header(protocol::MessageKind::fingerprint_full, 1 << 30, 1025, 2000, length);
  Verdict v = check_fixed_header(first, "node-b", length, 1 << 20, kChanges, facts_, 1024);
  EXPECT_EQ(v.status, 413U);
  EXPECT_EQ(v.reason, Refusal::too_large);
  EXPECT_NE(v.text.find("cluster.peer_max_fingerprints"), std::string::npos) << v.text;
  // A delta that would leave the set over the cap.
  first = fingerprint_header(protocol::MessageKind::fingerprint_delta, 1 << 30, 1025, 200, length);
  EXPECT_EQ(check_fixed_header(first, "node-b", length, 1 << 20, kChanges, facts_, 1024).status,
            413U);
  // A universe past filters::kMaxUniverse.
  first = fingerprint_header(protocol::MessageKind::fingerprint_full, filters::kMaxUniverse + 1, 10,
                             100, length);
  EXPECT_EQ(check_fixed_header(first, "node-b", length, 1 << 20, kChanges, facts_, 1024).status,
            413U);
  // More payload than 1024 fingerprints in that universe can take.
  const std::uint64_t bound = fingerprint_payload_bound_for(true, 1 << 30, 1024, kChanges);
  first =
      fingerprint_header(protocol::MessageKind::fingerprint_full, 1 << 30, 1000, bound + 1, length);
  v = check_fixed_header(first, "node-b", length, 1 << 20, kChanges, facts_, 1024);
  EXPECT_EQ(v.status, 413U);
  EXPECT_EQ(v.reason, Refusal::too_large);
}

// One bound for both (filters::FingerprintCap): a fingerprint set the head
// admits is one the directory holds, and one it refuses the directory would
// refuse, at the cap itself (inclusive) and on either side of it.
TEST_F(FixedHeader, TheHeadAdmitsExactlyWhatTheFingerprintDirectoryHolds) {
  constexpr std::uint64_t kCap = 1024;
  filters::FingerprintDirectory directory({}, kCap);
  for (const std::uint64_t universe : {kCap * 1000, (kCap << 16) - 1, kCap << 16, (kCap << 16) + 1,
                                       (kCap + 1) << 16, std::uint64_t{1} << 30}) {
    for (const std::uint64_t entries : {kCap - 1, kCap, kCap + 1}) {
      std::uint64_t length = 0;
      const std::string first = fingerprint_header(protocol::MessageKind::fingerprint_full,
                                                   universe, entries, 100, length);
      const bool admitted =
          !check_fixed_header(first, "node-b", length, 1 << 20, kChanges, facts_, kCap);
      std::vector<std::uint64_t> sorted(entries);
      for (std::uint64_t i = 0; i < entries; ++i) sorted[i] = i * (universe / entries);
      const bool held = !directory.set(0, universe, sorted);
      EXPECT_EQ(admitted, held) << entries << " fingerprints in a universe of " << universe;
      if (entries <= kCap && universe <= kCap << 16) {
        EXPECT_TRUE(held) << universe;
      }
    }
  }
}

TEST(FingerprintBounds, TheListenersBoundAdmitsEitherKindAtTheCap) {
  // A full of 10^6 URLs at p = 0.24% is about 1.3 MB; the bound of 2^20 fingerprints admits it.
  EXPECT_GE(fingerprint_payload_bound_for(true, 417'701'000, 1 << 20, kChanges), 1'300'000U);
  // A delta never adds more than the cap, however many changes a decoder takes.
  EXPECT_EQ(fingerprint_payload_bound_for(false, 1 << 30, 1024, kChanges),
            fingerprint_payload_bound_for(false, 1 << 30, 1024, 1024));
  const std::uint64_t bound = summary_message_bound(1 << 20, 1 << 20, 6);
  EXPECT_GE(bound, fingerprint_payload_bound_for(true, filters::kMaxUniverse, 1 << 20, kChanges));
  EXPECT_GE(bound, fingerprint_payload_bound_for(false, filters::kMaxUniverse, 1 << 20, kChanges));
  EXPECT_GE(bound, protocol::full_payload_bound(1 << 20));
}

}  // namespace
}  // namespace sumcache::daemon
