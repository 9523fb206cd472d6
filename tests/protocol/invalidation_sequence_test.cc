#include "protocol/invalidation_sequence.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <random>

namespace sumcache::protocol {
namespace {

constexpr std::uint64_t kEpoch = 1'700'000'000ULL << 20;

InvalidationBatch batch(std::uint64_t first, std::size_t count, std::uint64_t epoch = kEpoch,
                        std::optional<std::uint64_t> missed_until_ms = std::nullopt) {
  InvalidationBatch b;
  b.node_id = "node-a";
  b.epoch = epoch;
  b.first_seq = first;
  b.missed_until_ms = missed_until_ms;
  for (std::size_t i = 0; i < count; ++i) {
    b.entries.push_back({InvalidationKind::url, 1000 + i, "http://x/" + std::to_string(i)});
  }
  return b;
}

void expect_decision(const SequenceDecision& d, SequenceVerdict verdict, std::size_t skip,
                     std::uint64_t acked_through) {
  EXPECT_EQ(d.verdict, verdict) << to_string(d.verdict);
  EXPECT_EQ(d.skip, skip);
  EXPECT_EQ(d.acked_through, acked_through);
}

class InvalidationSequenceTest : public ::testing::Test {
 protected:
  // Holds kEpoch applied through 10.
  void hold_through_ten() {
    expect_decision(seq_.accept(batch(1, 10)), SequenceVerdict::apply, 0, 10);
  }
  InvalidationSequence seq_;
};

TEST_F(InvalidationSequenceTest, StartsWithoutState) {
  EXPECT_FALSE(seq_.has_state());
  EXPECT_EQ(seq_.applied_through(), 0U);
}

TEST_F(InvalidationSequenceTest, FirstBatchIsAppliedWhereverItStarts) {
  // The sender's acked_through outlives this receiver's restart, so the first
  // batch starts where the previous run stopped.
  expect_decision(seq_.accept(batch(41, 3)), SequenceVerdict::apply, 0, 43);
  EXPECT_TRUE(seq_.has_state());
  EXPECT_EQ(seq_.epoch(), kEpoch);
  EXPECT_EQ(seq_.applied_through(), 43U);
}

TEST_F(InvalidationSequenceTest, NextBatchIsAppliedWhole) {
  hold_through_ten();
  expect_decision(seq_.accept(batch(11, 5)), SequenceVerdict::apply, 0, 15);
  EXPECT_EQ(seq_.applied_through(), 15U);
}

TEST_F(InvalidationSequenceTest, OverlappingResendAppliesOnlyTheNewSuffix) {
  hold_through_ten();
  expect_decision(seq_.accept(batch(8, 5)), SequenceVerdict::apply_suffix, 3, 12);
  expect_decision(seq_.accept(batch(1, 13)), SequenceVerdict::apply_suffix, 12, 13);
  EXPECT_EQ(seq_.applied_through(), 13U);
}

TEST_F(InvalidationSequenceTest, BatchAlreadyAppliedIsADuplicateAndChangesNothing) {
  hold_through_ten();
  expect_decision(seq_.accept(batch(1, 10)), SequenceVerdict::duplicate, 10, 10);
  expect_decision(seq_.accept(batch(4, 2)), SequenceVerdict::duplicate, 2, 10);
  expect_decision(seq_.accept(batch(10, 1)), SequenceVerdict::duplicate, 1, 10);
  EXPECT_EQ(seq_.applied_through(), 10U);
}

TEST_F(InvalidationSequenceTest, GapIsRefusedAndAcksWhatIsHeld) {
  hold_through_ten();
  expect_decision(seq_.accept(batch(12, 3)), SequenceVerdict::gap, 3, 10);
  EXPECT_EQ(seq_.applied_through(), 10U);
  // The sender resends from acked_through + 1.
  expect_decision(seq_.accept(batch(11, 4)), SequenceVerdict::apply, 0, 14);
}

TEST_F(InvalidationSequenceTest, HigherEpochIsARestartAndResetsTheState) {
  hold_through_ten();
  expect_decision(seq_.accept(batch(1, 2, kEpoch + 1)), SequenceVerdict::new_epoch, 0, 2);
  EXPECT_EQ(seq_.epoch(), kEpoch + 1);
  EXPECT_EQ(seq_.applied_through(), 2U);
}

TEST_F(InvalidationSequenceTest, LowerEpochIsStaleAndChangesNothing) {
  hold_through_ten();
  // A batch of the sender's previous run, replayed: refused whatever its
  // sequences or missed flag, and the epoch held stays.
  expect_decision(seq_.accept(batch(1, 2, kEpoch - 1)), SequenceVerdict::stale_epoch, 2, 10);
  expect_decision(seq_.accept(batch(11, 3, kEpoch - 1)), SequenceVerdict::stale_epoch, 3, 10);
  expect_decision(seq_.accept(batch(50, 1, 1, 5000)), SequenceVerdict::stale_epoch, 1, 10);
  EXPECT_EQ(seq_.epoch(), kEpoch);
  EXPECT_EQ(seq_.applied_through(), 10U);
  expect_decision(seq_.accept(batch(11, 1)), SequenceVerdict::apply, 0, 11);
}

TEST_F(InvalidationSequenceTest, AlternatingTwoCapturedEpochsRestartsOnceOnly) {
  // Two captured runs of one sender, replayed in turn after it restarted a
  // third time: only the newest epoch is ever taken.
  hold_through_ten();
  expect_decision(seq_.accept(batch(1, 1, kEpoch + 2)), SequenceVerdict::new_epoch, 0, 1);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(seq_.accept(batch(1, 10)).verdict, SequenceVerdict::stale_epoch);
    EXPECT_EQ(seq_.accept(batch(1, 4, kEpoch + 1)).verdict, SequenceVerdict::stale_epoch);
  }
  EXPECT_EQ(seq_.epoch(), kEpoch + 2);
  EXPECT_EQ(seq_.applied_through(), 1U);
}

TEST_F(InvalidationSequenceTest, StaleEpochWinsOverMissedAndGap) {
  hold_through_ten();
  expect_decision(seq_.accept(batch(30, 2, kEpoch - 5, 5000)), SequenceVerdict::stale_epoch, 2, 10);
  EXPECT_EQ(seq_.epoch(), kEpoch);
}

// Over any sequence of batches the epoch held never decreases, and a batch
// that applies nothing changes nothing.
TEST(InvalidationSequenceProperty, EpochNeverDecreases) {
  std::mt19937_64 rng(27);
  for (int run = 0; run < 200; ++run) {
    InvalidationSequence seq;
    for (int step = 0; step < 200; ++step) {
      const std::uint64_t epoch = kEpoch + rng() % 5;
      const std::uint64_t first = 1 + rng() % 40;
      const std::size_t count = rng() % 4;
      const auto missed = rng() % 4 == 0 ? std::optional<std::uint64_t>(5000) : std::nullopt;
      const bool had = seq.has_state();
      const std::uint64_t held = seq.epoch(), through = seq.applied_through();
      const SequenceDecision d = seq.accept(batch(first, count, epoch, missed));
      if (had) {
        ASSERT_GE(seq.epoch(), held);
      }
      if (had && epoch < held && count > 0) {
        ASSERT_EQ(d.verdict, SequenceVerdict::stale_epoch);
      }
      if (d.skip == count && had) {
        ASSERT_EQ(seq.epoch(), held);
        ASSERT_EQ(seq.applied_through(), through);
      }
    }
  }
}

TEST_F(InvalidationSequenceTest, NewEpochWinsOverMissed) {
  hold_through_ten();
  expect_decision(seq_.accept(batch(30, 2, kEpoch + 1, 5000)), SequenceVerdict::new_epoch, 0, 31);
}

TEST_F(InvalidationSequenceTest, MissedBatchBeyondWhatIsHeldJumpsAhead) {
  hold_through_ten();
  expect_decision(seq_.accept(batch(50, 4, kEpoch, 5000)), SequenceVerdict::missed, 0, 53);
  EXPECT_EQ(seq_.applied_through(), 53U);
}

TEST_F(InvalidationSequenceTest, MissedFlagWithoutStateIsMissed) {
  expect_decision(seq_.accept(batch(50, 4, kEpoch, 5000)), SequenceVerdict::missed, 0, 53);
  EXPECT_TRUE(seq_.has_state());
}

TEST_F(InvalidationSequenceTest, MissedFlagIsMootWhenNothingWasMissedHere) {
  hold_through_ten();
  expect_decision(seq_.accept(batch(11, 2, kEpoch, 5000)), SequenceVerdict::apply, 0, 12);
  expect_decision(seq_.accept(batch(10, 4, kEpoch, 5000)), SequenceVerdict::apply_suffix, 3, 13);
  expect_decision(seq_.accept(batch(2, 3, kEpoch, 5000)), SequenceVerdict::duplicate, 3, 13);
}

TEST_F(InvalidationSequenceTest, EmptyBatchChangesNothing) {
  hold_through_ten();
  InvalidationBatch empty = batch(11, 0);
  expect_decision(seq_.accept(empty), SequenceVerdict::duplicate, 0, 10);
  empty.epoch = kEpoch + 1;
  expect_decision(seq_.accept(empty), SequenceVerdict::duplicate, 0, 10);
  EXPECT_EQ(seq_.epoch(), kEpoch);
}

TEST_F(InvalidationSequenceTest, HighestSequencesDoNotOverflow) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  expect_decision(seq_.accept(batch(kMax - 3, 4)), SequenceVerdict::apply, 0, kMax);
  expect_decision(seq_.accept(batch(kMax - 1, 2)), SequenceVerdict::duplicate, 2, kMax);
  expect_decision(seq_.accept(batch(kMax, 1)), SequenceVerdict::duplicate, 1, kMax);
}

TEST(SequenceVerdictNames, EachVerdictHasItsName) {
  EXPECT_STREQ(to_string(SequenceVerdict::apply), "apply");
  EXPECT_STREQ(to_string(SequenceVerdict::apply_suffix), "apply_suffix");
  EXPECT_STREQ(to_string(SequenceVerdict::duplicate), "duplicate");
  EXPECT_STREQ(to_string(SequenceVerdict::gap), "gap");
  EXPECT_STREQ(to_string(SequenceVerdict::stale_epoch), "stale_epoch");
  EXPECT_STREQ(to_string(SequenceVerdict::new_epoch), "new_epoch");
  EXPECT_STREQ(to_string(SequenceVerdict::missed), "missed");
}

}  // namespace
}  // namespace sumcache::protocol
