#include "protocol/peer_summary.h"

#include <gtest/gtest.h>

#include <random>

#include "protocol/protocol_error.h"
#include "tests/protocol/protocol_test_util.h"

namespace sumcache::protocol {
namespace {

using testing::info_for;
using testing::random_bits;

SummaryMessage full(const filters::BloomFilter& bits, std::uint64_t sequence,
                    std::uint64_t epoch = 1'700'000'000) {
  SummaryMessage m;
  m.kind = MessageKind::full;
  m.info = info_for(bits, sequence);
  m.info.epoch = epoch;
  m.bits = bits;
  return m;
}

SummaryMessage delta(const filters::BloomFilter& like, std::uint64_t base, std::uint64_t sequence,
                     std::vector<filters::BitChange> changes) {
  SummaryMessage m;
  m.kind = MessageKind::delta;
  m.compression = Compression::rice_gaps;
  m.info = info_for(like, sequence);
  m.base_sequence = base;
  m.changes = std::move(changes);
  return m;
}

class PeerSummaryTest : public ::testing::Test {
 protected:
  filters::BloomFilter bits_ = random_bits(1000, 2, 0.1, 1);
  PeerSummary peer_;
};

TEST_F(PeerSummaryTest, StartsWithoutState) {
  EXPECT_FALSE(peer_.has_state());
  EXPECT_EQ(peer_.apply(delta(bits_, 0, 1, {})), ProtocolErrc::no_state);
  EXPECT_FALSE(peer_.has_state());
}

TEST_F(PeerSummaryTest, FullSetsEverything) {
  ASSERT_FALSE(peer_.apply(full(bits_, 5)));
  ASSERT_TRUE(peer_.has_state());
  EXPECT_EQ(peer_.bits(), bits_);
  EXPECT_EQ(peer_.sequence(), 5U);
  EXPECT_EQ(peer_.epoch(), 1'700'000'000U);
  EXPECT_EQ(peer_.entries(), 10U);
  EXPECT_EQ(peer_.info().node_id, "node-a");
}

TEST_F(PeerSummaryTest, DeltaOnItsBaseSetsTheStatedValues) {
  ASSERT_FALSE(peer_.apply(full(bits_, 5)));
  ASSERT_FALSE(peer_.apply(delta(bits_, 5, 6, {{0, true}, {1, false}, {999, true}})));
  EXPECT_TRUE(peer_.bits().test_bit(0));
  EXPECT_FALSE(peer_.bits().test_bit(1));
  EXPECT_TRUE(peer_.bits().test_bit(999));
  EXPECT_EQ(peer_.sequence(), 6U);
}

TEST_F(PeerSummaryTest, OldDeltaIsIgnoredWithoutError) {
  ASSERT_FALSE(peer_.apply(full(bits_, 5)));
  const auto before = peer_.bits();
  EXPECT_FALSE(peer_.apply(delta(bits_, 3, 5, {{0, !before.test_bit(0)}})));
  EXPECT_FALSE(peer_.apply(delta(bits_, 1, 2, {{0, !before.test_bit(0)}})));
  EXPECT_EQ(peer_.bits(), before);
  EXPECT_EQ(peer_.sequence(), 5U);
}

TEST_F(PeerSummaryTest, DeltaFromALaterBaseIsASequenceGap) {
  ASSERT_FALSE(peer_.apply(full(bits_, 5)));
  const auto before = peer_.bits();
  EXPECT_EQ(peer_.apply(delta(bits_, 6, 7, {{0, true}})), ProtocolErrc::sequence_gap);
  EXPECT_EQ(peer_.bits(), before);
  EXPECT_EQ(peer_.sequence(), 5U);
}

// Bit 0 was set at 4 and cleared again at 6: a delta from 4 to 6 does not
// list it, yet the state held at 5 has it set.
TEST_F(PeerSummaryTest, DeltaFromAnEarlierBaseIsASequenceGap) {
  auto at4 = bits_;
  at4.set_bit(0, false);
  ASSERT_FALSE(peer_.apply(full(at4, 4)));
  ASSERT_FALSE(peer_.apply(delta(bits_, 4, 5, {{0, true}})));
  EXPECT_EQ(peer_.apply(delta(bits_, 4, 6, {})), ProtocolErrc::sequence_gap);
  EXPECT_TRUE(peer_.bits().test_bit(0));
  EXPECT_EQ(peer_.sequence(), 5U);
}

TEST_F(PeerSummaryTest, DeltaFromAnotherEpochOrFilterIsRefused) {
  ASSERT_FALSE(peer_.apply(full(bits_, 5)));
  auto other_epoch = delta(bits_, 5, 6, {});
  other_epoch.info.epoch += 1;
  EXPECT_EQ(peer_.apply(other_epoch), ProtocolErrc::epoch_mismatch);
  auto other_k = delta(bits_, 5, 6, {});
  other_k.info.params.k = 3;
  EXPECT_EQ(peer_.apply(other_k), ProtocolErrc::params_mismatch);
  auto other_seed = delta(bits_, 5, 6, {});
  other_seed.info.hasher = *filters::Hasher::create(filters::HashId::xxh3_128, 1);
  EXPECT_EQ(peer_.apply(other_seed), ProtocolErrc::params_mismatch);
  auto other_node = delta(bits_, 5, 6, {});
  other_node.info.node_id = "node-b";
  EXPECT_EQ(peer_.apply(other_node), ProtocolErrc::params_mismatch);
  EXPECT_EQ(peer_.sequence(), 5U);
}

TEST_F(PeerSummaryTest, HandBuiltDeltaNotAscendingOrPastMChangesNothing) {
  ASSERT_FALSE(peer_.apply(full(bits_, 5)));
  const auto before = peer_.bits();
  EXPECT_EQ(peer_.apply(delta(bits_, 5, 6, {{0, true}, {5, true}, {3, true}})),
            ProtocolErrc::bad_encoding);
  EXPECT_EQ(peer_.apply(delta(bits_, 5, 6, {{5, true}, {5, false}})), ProtocolErrc::bad_encoding);
  EXPECT_EQ(peer_.apply(delta(bits_, 5, 6, {{0, true}, {1000, true}})), ProtocolErrc::bad_encoding);
  EXPECT_EQ(peer_.bits(), before);
  EXPECT_EQ(peer_.sequence(), 5U);
}

TEST_F(PeerSummaryTest, FullOfANewEpochReplacesEvenWithALowerSequence) {
  ASSERT_FALSE(peer_.apply(full(bits_, 50)));
  const auto fresh = random_bits(2000, 1, 0.01, 2);
  ASSERT_FALSE(peer_.apply(full(fresh, 1, 1'800'000'000)));
  EXPECT_EQ(peer_.bits(), fresh);
  EXPECT_EQ(peer_.sequence(), 1U);
  EXPECT_EQ(peer_.epoch(), 1'800'000'000U);
}

TEST_F(PeerSummaryTest, OlderFullOfTheSameEpochIsIgnored) {
  ASSERT_FALSE(peer_.apply(full(bits_, 50)));
  EXPECT_FALSE(peer_.apply(full(random_bits(1000, 2, 0.5, 3), 49)));
  EXPECT_EQ(peer_.bits(), bits_);
  EXPECT_EQ(peer_.sequence(), 50U);
}

// The held epoch never goes back: a message of an earlier run of the sender,
// replayed, is refused whatever its kind or sequence, and changes nothing.
TEST_F(PeerSummaryTest, FullOrDeltaOfALowerEpochIsStaleAndChangesNothing) {
  ASSERT_FALSE(peer_.apply(full(bits_, 5, 1'800'000'000)));
  const auto old_bits = random_bits(1000, 2, 0.5, 3);
  EXPECT_EQ(peer_.apply(full(old_bits, 90)), ProtocolErrc::stale_epoch);
  EXPECT_EQ(peer_.admit(full(old_bits, 1)).error(), ProtocolErrc::stale_epoch);
  EXPECT_EQ(peer_.apply(delta(bits_, 5, 6, {{0, true}})), ProtocolErrc::stale_epoch);
  EXPECT_EQ(peer_.bits(), bits_);
  EXPECT_EQ(peer_.epoch(), 1'800'000'000U);
  EXPECT_EQ(peer_.sequence(), 5U);
}

TEST_F(PeerSummaryTest, AlternatingTwoOldEpochsNeverTakesEither) {
  ASSERT_FALSE(peer_.apply(full(bits_, 2, 1'900'000'000)));
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(peer_.apply(full(random_bits(1000, 2, 0.5, 3), 1)), ProtocolErrc::stale_epoch);
    EXPECT_EQ(peer_.apply(full(random_bits(1000, 2, 0.5, 4), 1, 1'800'000'000)),
              ProtocolErrc::stale_epoch);
  }
  EXPECT_EQ(peer_.bits(), bits_);
  EXPECT_EQ(peer_.epoch(), 1'900'000'000U);
}

// Over any sequence of fulls and deltas of random epochs and sequences, the
// epoch held never decreases, and a refused or ignored message changes nothing.
TEST(PeerSummaryProperty, EpochNeverDecreases) {
  std::mt19937_64 rng(27);
  const auto bits = random_bits(1000, 2, 0.1, 1);
  for (int run = 0; run < 100; ++run) {
    PeerSummary peer;
    for (int step = 0; step < 100; ++step) {
      const std::uint64_t epoch = 1'700'000'000 + rng() % 4;
      const std::uint64_t sequence = 1 + rng() % 8;
      SummaryMessage m = rng() % 2 == 0
                             ? full(bits, sequence, epoch)
                             : delta(bits, sequence - 1, sequence, {{rng() % 1000, true}});
      m.info.epoch = epoch;
      const bool had = peer.has_state();
      const std::uint64_t held = peer.epoch(), at = peer.sequence();
      const auto verdict = peer.admit(m);
      const auto ec = peer.apply(m);
      if (!had) continue;
      ASSERT_GE(peer.epoch(), held);
      if (epoch < held) {
        ASSERT_EQ(ec, ProtocolErrc::stale_epoch);
      }
      if (ec || !*verdict) {
        ASSERT_EQ(peer.epoch(), held);
        ASSERT_EQ(peer.sequence(), at);
      }
    }
  }
}

TEST_F(PeerSummaryTest, FullWithoutBitsOrWithOtherParamsIsBadEncoding) {
  auto no_bits = full(bits_, 1);
  no_bits.bits.reset();
  EXPECT_EQ(peer_.apply(no_bits), ProtocolErrc::bad_encoding);
  auto mismatched = full(bits_, 1);
  mismatched.info.params.m = 999;
  EXPECT_EQ(peer_.apply(mismatched), ProtocolErrc::bad_encoding);
  EXPECT_FALSE(peer_.has_state());
}

}  // namespace
}  // namespace sumcache::protocol
