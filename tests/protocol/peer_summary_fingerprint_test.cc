// PeerSummary's admission of the fingerprint kinds (docs/protocol.md,
// "Receiver state"): the Bloom kinds' rules, with the kind of state held as
// one more parameter and the base size as one more check. admit() decides and
// changes nothing; commit() takes what admit() accepted.

#include <gtest/gtest.h>

#include "protocol/peer_summary.h"
#include "protocol/protocol_error.h"
#include "tests/protocol/fingerprint_test_util.h"
#include "tests/protocol/protocol_test_util.h"

namespace sumcache::protocol {
namespace {

constexpr std::uint64_t kUniverse = 1000;
constexpr std::uint64_t kEpoch = 1'700'000'000;

SummaryMessage fp_full(std::vector<std::uint64_t> set, std::uint64_t sequence,
                       std::uint64_t epoch = kEpoch) {
  SummaryMessage m;
  m.kind = MessageKind::fingerprint_full;
  m.version = m.min_version = kFingerprintVersion;
  m.compression = Compression::rice_gaps;
  m.info = testing::fingerprint_info(kUniverse, set.size(), sequence);
  m.info.epoch = epoch;
  m.fingerprints.added = std::move(set);
  return m;
}

// `entries` is the size after the delta.
SummaryMessage fp_delta(std::uint64_t base, std::uint64_t sequence, std::uint64_t entries,
                        filters::FingerprintDelta delta) {
  SummaryMessage m;
  m.kind = MessageKind::fingerprint_delta;
  m.version = m.min_version = kFingerprintVersion;
  m.compression = Compression::rice_gaps;
  m.info = testing::fingerprint_info(kUniverse, entries, sequence);
  m.base_sequence = base;
  m.fingerprints = std::move(delta);
  return m;
}

SummaryMessage bloom_full(std::uint64_t sequence) {
  SummaryMessage m;
  m.kind = MessageKind::full;
  const auto bits = testing::random_bits(kUniverse, 1, 0.01, 1);
  m.info = testing::info_for(bits, sequence);
  m.bits = bits;
  return m;
}

SummaryMessage bloom_delta(std::uint64_t base, std::uint64_t sequence) {
  SummaryMessage m;
  m.kind = MessageKind::delta;
  m.compression = Compression::rice_gaps;
  m.info = testing::info_for(testing::random_bits(kUniverse, 1, 0, 1), sequence);
  m.base_sequence = base;
  m.changes = {{3, true}};
  return m;
}

// Everything PeerSummary exposes, to show that admit() and refusals change nothing.
struct State {
  bool has_state, fingerprints;
  std::uint64_t epoch, sequence, entries;
  bool operator==(const State&) const = default;
};
State state(const PeerSummary& p) {
  return {p.has_state(), p.holds_fingerprints(), p.epoch(), p.sequence(), p.entries()};
}

class PeerSummaryFingerprintTest : public ::testing::Test {
 protected:
  // Holds {1, 5, 5, 900} at sequence 5.
  void SetUp() override { ASSERT_FALSE(peer_.apply(fp_full({1, 5, 5, 900}, 5))); }
  std::error_code admit_error(const SummaryMessage& m) const {
    const auto before = state(peer_);
    const auto verdict = peer_.admit(m);
    EXPECT_EQ(state(peer_), before) << "admit changed the state";
    return verdict.ok() ? std::error_code{} : verdict.error();
  }
  PeerSummary peer_;
};

TEST(PeerSummaryFingerprint, FullOnNoStateIsAdmittedAndCommitted) {
  PeerSummary peer;
  const auto m = fp_full({2, 2, 7}, 3);
  ASSERT_EQ(peer.admit(m).value(), true);
  EXPECT_FALSE(peer.has_state());  // admit changes nothing
  peer.commit(m);
  EXPECT_TRUE(peer.has_state());
  EXPECT_TRUE(peer.holds_fingerprints());
  EXPECT_EQ(peer.sequence(), 3U);
  EXPECT_EQ(peer.entries(), 3U);
  EXPECT_EQ(peer.info().params, (filters::BloomParams{kUniverse, 1}));
  EXPECT_EQ(peer.info().node_id, "node-a");
}

TEST(PeerSummaryFingerprint, DeltaBeforeAnyFullIsNoState) {
  PeerSummary peer;
  EXPECT_EQ(peer.admit(fp_delta(0, 1, 0, {})).error(), ProtocolErrc::no_state);
  EXPECT_EQ(peer.apply(fp_delta(0, 1, 0, {})), ProtocolErrc::no_state);
  EXPECT_FALSE(peer.has_state());
}

TEST_F(PeerSummaryFingerprintTest, DeltaOnItsBaseIsAdmittedAndCommitMovesSequenceAndSize) {
  // Remove ranks 1 and 3 (a 5 and the 900), add 7: {1, 5, 7}.
  const auto m = fp_delta(5, 6, 3, {{1, 3}, {7}});
  ASSERT_EQ(peer_.admit(m).value(), true);
  EXPECT_EQ(peer_.sequence(), 5U);
  peer_.commit(m);
  EXPECT_EQ(peer_.sequence(), 6U);
  EXPECT_EQ(peer_.entries(), 3U);
  EXPECT_TRUE(peer_.holds_fingerprints());
  EXPECT_EQ(peer_.epoch(), kEpoch);
}

TEST_F(PeerSummaryFingerprintTest, OldDeltaIsAReplayAdmittedAsFalse) {
  const auto before = state(peer_);
  EXPECT_EQ(peer_.admit(fp_delta(4, 5, 4, {})).value(), false);
  EXPECT_EQ(peer_.admit(fp_delta(1, 2, 9, {{0}, {}})).value(), false);
  EXPECT_FALSE(peer_.apply(fp_delta(4, 5, 4, {})));
  EXPECT_EQ(state(peer_), before);
}

TEST_F(PeerSummaryFingerprintTest, DeltaFromAnotherBaseIsASequenceGap) {
  EXPECT_EQ(admit_error(fp_delta(6, 7, 4, {})), ProtocolErrc::sequence_gap);
  EXPECT_EQ(admit_error(fp_delta(4, 7, 4, {})), ProtocolErrc::sequence_gap);
  EXPECT_EQ(peer_.apply(fp_delta(6, 7, 4, {})), ProtocolErrc::sequence_gap);
  EXPECT_EQ(peer_.sequence(), 5U);
}

TEST_F(PeerSummaryFingerprintTest, DeltaFromASetOfAnotherSizeIsASequenceGap) {
  // Base sizes 5 and 3 (entries + removed - added); 4 is held.
  EXPECT_EQ(admit_error(fp_delta(5, 6, 5, {})), ProtocolErrc::sequence_gap);
  EXPECT_EQ(admit_error(fp_delta(5, 6, 4, {{0}, {1, 2}})), ProtocolErrc::sequence_gap);
  EXPECT_EQ(admit_error(fp_delta(5, 6, 4, {{0}, {1}})), std::error_code{});
}

TEST_F(PeerSummaryFingerprintTest, DeltaFromAnotherEpochNodeUniverseOrHasherIsRefused) {
  auto other_epoch = fp_delta(5, 6, 4, {});
  other_epoch.info.epoch += 1;
  EXPECT_EQ(admit_error(other_epoch), ProtocolErrc::epoch_mismatch);
  auto other_node = fp_delta(5, 6, 4, {});
  other_node.info.node_id = "node-b";
  EXPECT_EQ(admit_error(other_node), ProtocolErrc::params_mismatch);
  auto other_universe = fp_delta(5, 6, 4, {});
  other_universe.info.params.m = kUniverse + 1;
  EXPECT_EQ(admit_error(other_universe), ProtocolErrc::params_mismatch);
  auto other_hasher = fp_delta(5, 6, 4, {});
  other_hasher.info.hasher = *filters::Hasher::create(filters::HashId::md5);
  EXPECT_EQ(admit_error(other_hasher), ProtocolErrc::params_mismatch);
}

TEST_F(PeerSummaryFingerprintTest, BloomDeltaOnAFingerprintStateIsAParamsMismatch) {
  EXPECT_EQ(admit_error(bloom_delta(5, 6)), ProtocolErrc::params_mismatch);
  EXPECT_EQ(peer_.apply(bloom_delta(5, 6)), ProtocolErrc::params_mismatch);
  EXPECT_TRUE(peer_.holds_fingerprints());
}

TEST(PeerSummaryFingerprint, FingerprintDeltaOnABloomStateIsAParamsMismatch) {
  PeerSummary peer;
  ASSERT_FALSE(peer.apply(bloom_full(5)));
  // Same node, epoch, m = U, k = 1 and hasher: only the kind of state differs.
  ASSERT_EQ(peer.info().params, (filters::BloomParams{kUniverse, 1}));
  EXPECT_EQ(peer.admit(fp_delta(5, 6, 10, {})).error(), ProtocolErrc::params_mismatch);
  EXPECT_EQ(peer.apply(fp_delta(5, 6, 10, {})), ProtocolErrc::params_mismatch);
  EXPECT_FALSE(peer.holds_fingerprints());
  EXPECT_EQ(peer.sequence(), 5U);
}

TEST_F(PeerSummaryFingerprintTest, AFullOfEitherKindChangesTheKindHeld) {
  ASSERT_FALSE(peer_.apply(bloom_full(6)));
  EXPECT_FALSE(peer_.holds_fingerprints());
  EXPECT_TRUE(peer_.has_state());
  EXPECT_EQ(peer_.bits(), *bloom_full(6).bits);
  ASSERT_FALSE(peer_.apply(fp_full({3}, 7)));
  EXPECT_TRUE(peer_.holds_fingerprints());
  EXPECT_EQ(peer_.entries(), 1U);
  EXPECT_EQ(peer_.sequence(), 7U);
}

TEST_F(PeerSummaryFingerprintTest, OlderFullOfTheEpochIsIgnoredANewEpochReplaces) {
  EXPECT_EQ(peer_.admit(fp_full({1}, 4)).value(), false);
  EXPECT_EQ(peer_.admit(bloom_full(4)).value(), false);
  EXPECT_FALSE(peer_.apply(fp_full({1}, 4)));
  EXPECT_EQ(peer_.entries(), 4U);
  EXPECT_EQ(peer_.admit(fp_full({1}, 5)).value(), true);  // the same sequence again: taken
  ASSERT_FALSE(peer_.apply(fp_full({8, 9}, 1, kEpoch + 1)));
  EXPECT_EQ(peer_.epoch(), kEpoch + 1);
  EXPECT_EQ(peer_.sequence(), 1U);
  EXPECT_EQ(peer_.entries(), 2U);
}

TEST_F(PeerSummaryFingerprintTest, AnyKindOfALowerEpochIsStaleAndChangesNothing) {
  auto old_delta = fp_delta(5, 6, 4, {});
  old_delta.info.epoch = kEpoch - 1;
  auto old_bloom = bloom_full(9);
  old_bloom.info.epoch = kEpoch - 1;
  EXPECT_EQ(admit_error(fp_full({1}, 9, kEpoch - 1)), ProtocolErrc::stale_epoch);
  EXPECT_EQ(admit_error(old_delta), ProtocolErrc::stale_epoch);
  EXPECT_EQ(admit_error(old_bloom), ProtocolErrc::stale_epoch);
  const auto before = state(peer_);
  EXPECT_EQ(peer_.apply(fp_full({1}, 9, kEpoch - 1)), ProtocolErrc::stale_epoch);
  EXPECT_EQ(state(peer_), before);
}

// A holder must not take bits() from it afterwards (peer_summary_fuzz found
// its own directory update doing so).
TEST_F(PeerSummaryFingerprintTest, AnIgnoredOlderBloomFullLeavesTheFingerprintStateHeld) {
  EXPECT_FALSE(peer_.apply(bloom_full(4)));
  EXPECT_TRUE(peer_.holds_fingerprints());
  EXPECT_EQ(peer_.sequence(), 5U);
  EXPECT_EQ(peer_.entries(), 4U);
}

TEST_F(PeerSummaryFingerprintTest, HandBuiltFullThatBreaksTheKindsTermsIsBadEncoding) {
  EXPECT_EQ(admit_error(fp_full({5, 1}, 6)), ProtocolErrc::bad_encoding);          // descending
  EXPECT_EQ(admit_error(fp_full({1, kUniverse}, 6)), ProtocolErrc::bad_encoding);  // = U
  auto wrong_size = fp_full({1, 2}, 6);
  wrong_size.info.entries = 3;
  EXPECT_EQ(admit_error(wrong_size), ProtocolErrc::bad_encoding);
  auto k2 = fp_full({1, 2}, 6);
  k2.info.params.k = 2;
  EXPECT_EQ(admit_error(k2), ProtocolErrc::bad_encoding);
  auto with_ranks = fp_full({1, 2}, 6);
  with_ranks.fingerprints.removed_ranks = {0};
  EXPECT_EQ(admit_error(with_ranks), ProtocolErrc::bad_encoding);
  auto no_universe = fp_full({}, 6);
  no_universe.info.params.m = 0;
  EXPECT_EQ(admit_error(no_universe), ProtocolErrc::bad_encoding);
}

TEST_F(PeerSummaryFingerprintTest, HandBuiltDeltaThatBreaksTheKindsTermsIsBadEncoding) {
  // Base 4 held; each keeps entries + removed - added = 4 where it can.
  EXPECT_EQ(admit_error(fp_delta(5, 6, 4, {{2, 1}, {}})), ProtocolErrc::bad_encoding);
  EXPECT_EQ(admit_error(fp_delta(5, 6, 3, {{1, 1}, {}})), ProtocolErrc::bad_encoding);
  EXPECT_EQ(admit_error(fp_delta(5, 6, 3, {{4}, {}})), ProtocolErrc::bad_encoding);  // rank = B
  EXPECT_EQ(admit_error(fp_delta(5, 6, 5, {{}, {kUniverse}})), ProtocolErrc::bad_encoding);
  EXPECT_EQ(admit_error(fp_delta(5, 6, 6, {{}, {9, 8}})), ProtocolErrc::bad_encoding);
  EXPECT_EQ(admit_error(fp_delta(5, 6, 0, {{}, {1}})), ProtocolErrc::bad_encoding);  // B < 0
  EXPECT_EQ(peer_.sequence(), 5U);
}

TEST_F(PeerSummaryFingerprintTest, ApplyIsAdmitThenCommit) {
  const auto m = fp_delta(5, 6, 5, {{}, {0}});
  PeerSummary twin = peer_;
  ASSERT_EQ(twin.admit(m).value(), true);
  twin.commit(m);
  ASSERT_FALSE(peer_.apply(m));
  EXPECT_EQ(state(peer_), state(twin));
}

}  // namespace
}  // namespace sumcache::protocol
