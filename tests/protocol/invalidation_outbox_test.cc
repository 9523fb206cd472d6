#include "protocol/invalidation_outbox.h"

#include <gtest/gtest.h>

#include "protocol/invalidation_sequence.h"

namespace sumcache::protocol {
namespace {

constexpr std::uint64_t kEpoch = 77;

Invalidation url(std::uint64_t time_ms, std::size_t length = 10) {
  std::string value = "http://x/" + std::to_string(time_ms);
  value.resize(std::max(length, value.size()), 'p');
  return {InvalidationKind::url, time_ms, value};
}

InvalidationAck ack_from(std::string peer, std::uint64_t through, std::uint64_t epoch = kEpoch,
                         std::string acked_node = "node-a") {
  return {std::move(peer), std::move(acked_node), epoch, through};
}

void add_times(InvalidationOutbox& outbox, std::uint64_t from, std::uint64_t to) {
  for (std::uint64_t t = from; t <= to; ++t) ASSERT_TRUE(outbox.add(url(t)).ok());
}

TEST(InvalidationOutbox, NumbersInvalidationsFromOne) {
  InvalidationOutbox outbox("node-a", kEpoch);
  EXPECT_EQ(outbox.last_sequence(), 0U);
  EXPECT_EQ(outbox.oldest_retained(), 1U);
  EXPECT_EQ(*outbox.add(url(1)), 1U);
  EXPECT_EQ(*outbox.add({InvalidationKind::tag, 2, "t"}), 2U);
  EXPECT_EQ(outbox.last_sequence(), 2U);
  EXPECT_EQ(outbox.retained_count(), 2U);
  EXPECT_EQ(outbox.retained_bytes(), invalidation_entry_bytes(url(1)) + 12U);
}

TEST(InvalidationOutbox, RefusesAnInvalidationTheFormatCannotCarry) {
  InvalidationOutbox outbox("node-a", kEpoch);
  for (const Invalidation& bad :
       {Invalidation{InvalidationKind::url, 1, ""}, Invalidation{InvalidationKind::tag, 1, "a b"},
        Invalidation{InvalidationKind::tag, 1, std::string(1025, 't')},
        Invalidation{InvalidationKind{9}, 1, "x"}}) {
    auto r = outbox.add(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), InvalidationErrc::invalid_message);
  }
  EXPECT_EQ(outbox.last_sequence(), 0U);
}

TEST(InvalidationOutbox, BatchStartsAfterThePeersAckAndAckAdvancesIt) {
  InvalidationOutbox outbox("node-a", kEpoch);
  ASSERT_TRUE(outbox.add_peer("node-b", 0));
  EXPECT_FALSE(outbox.batch_for("node-b"));  // nothing pending
  add_times(outbox, 1, 5);
  EXPECT_EQ(outbox.pending("node-b"), 5U);
  auto batch = outbox.batch_for("node-b");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->node_id, "node-a");
  EXPECT_EQ(batch->epoch, kEpoch);
  EXPECT_EQ(batch->first_seq, 1U);
  ASSERT_EQ(batch->entries.size(), 5U);
  EXPECT_EQ(batch->entries[4], url(5));
  EXPECT_FALSE(batch->missed_until_ms);
  EXPECT_FALSE(check_invalidations(*batch));

  EXPECT_EQ(outbox.ack(ack_from("node-b", 3)), AckOutcome::accepted);
  EXPECT_EQ(outbox.pending("node-b"), 2U);
  batch = outbox.batch_for("node-b");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->first_seq, 4U);
  EXPECT_EQ(batch->entries.size(), 2U);
  EXPECT_EQ(outbox.ack(ack_from("node-b", 5)), AckOutcome::accepted);
  EXPECT_EQ(outbox.pending("node-b"), 0U);
  EXPECT_FALSE(outbox.batch_for("node-b"));
}

TEST(InvalidationOutbox, LowerAckIsAResendRequest) {
  InvalidationOutbox outbox("node-a", kEpoch);
  ASSERT_TRUE(outbox.add_peer("node-b", 0));
  add_times(outbox, 1, 6);
  ASSERT_EQ(outbox.ack(ack_from("node-b", 6)), AckOutcome::accepted);
  EXPECT_EQ(outbox.ack(ack_from("node-b", 2)), AckOutcome::accepted);
  const auto batch = outbox.batch_for("node-b");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->first_seq, 3U);
  EXPECT_EQ(batch->last_seq(), 6U);
}

TEST(InvalidationOutbox, RefusedAcksChangeNothing) {
  InvalidationOutbox outbox("node-a", kEpoch);
  ASSERT_TRUE(outbox.add_peer("node-b", 0));
  add_times(outbox, 1, 4);
  ASSERT_EQ(outbox.ack(ack_from("node-b", 2)), AckOutcome::accepted);
  EXPECT_EQ(outbox.ack(ack_from("node-c", 4)), AckOutcome::unknown_peer);
  EXPECT_EQ(outbox.ack(ack_from("node-b", 4, kEpoch, "node-z")), AckOutcome::wrong_node);
  EXPECT_EQ(outbox.ack(ack_from("node-b", 4, kEpoch + 1)), AckOutcome::stale_epoch);
  EXPECT_EQ(outbox.ack(ack_from("node-b", 5)), AckOutcome::ahead);
  EXPECT_EQ(outbox.acked_through("node-b"), 2U);
  EXPECT_STREQ(to_string(AckOutcome::ahead), "ahead");
  EXPECT_STREQ(to_string(AckOutcome::stale_epoch), "stale_epoch");
}

// Every ack a receiver signs says what it had applied then, so a replayed
// one never acknowledges a purge the receiver did not apply: at most it lowers
// acked_through (a resend, a duplicate there); one of the sender's previous
// run is refused outright.
TEST(InvalidationOutbox, AReplayedAckNeverAcknowledgesWhatTheReceiverDidNotApply) {
  InvalidationOutbox outbox("node-a", kEpoch);
  InvalidationSequence receiver;
  ASSERT_TRUE(outbox.add_peer("node-b", 0));
  std::vector<InvalidationAck> captured;
  for (std::uint64_t t = 1; t <= 6; ++t) {
    add_times(outbox, t, t);
    const auto batch = outbox.batch_for("node-b");
    ASSERT_TRUE(batch);
    const SequenceDecision d = receiver.accept(*batch);
    captured.push_back({"node-b", "node-a", batch->epoch, d.acked_through});
    ASSERT_EQ(outbox.ack(captured.back()), AckOutcome::accepted);
  }
  add_times(outbox, 7, 9);  // assigned, never sent: node-b has applied through 6
  for (const auto& ack : captured) {
    EXPECT_EQ(outbox.ack(ack), AckOutcome::accepted);
    EXPECT_LE(*outbox.acked_through("node-b"), receiver.applied_through());
    EXPECT_GE(outbox.pending("node-b"), 3U);
  }
  InvalidationOutbox restarted("node-a", kEpoch + 1);
  ASSERT_TRUE(restarted.add_peer("node-b", 0));
  add_times(restarted, 1, 6);
  for (const auto& ack : captured) EXPECT_EQ(restarted.ack(ack), AckOutcome::stale_epoch);
  EXPECT_EQ(restarted.acked_through("node-b"), 0U);
  EXPECT_EQ(restarted.pending("node-b"), 6U);
}

TEST(InvalidationOutbox, PeersStartWhereTheCallerSays) {
  InvalidationOutbox outbox("node-a", kEpoch);
  add_times(outbox, 1, 3);
  EXPECT_FALSE(outbox.add_peer("node-b", 4));  // above last_sequence()
  EXPECT_FALSE(outbox.has_peer("node-b"));
  ASSERT_TRUE(outbox.add_peer("node-b", outbox.last_sequence()));  // from now on
  EXPECT_EQ(outbox.pending("node-b"), 0U);
  ASSERT_TRUE(outbox.add_peer("node-c", 0));  // everything
  EXPECT_EQ(outbox.pending("node-c"), 3U);
  outbox.remove_peer("node-c");
  EXPECT_FALSE(outbox.has_peer("node-c"));
  EXPECT_EQ(outbox.pending("node-c"), 0U);
  EXPECT_FALSE(outbox.batch_for("node-c"));
  EXPECT_FALSE(outbox.missed("node-c"));
}

TEST(InvalidationOutbox, AckedByAllIsTheLowestPeer) {
  InvalidationOutbox outbox("node-a", kEpoch);
  add_times(outbox, 1, 5);
  EXPECT_EQ(outbox.acked_by_all(), 5U);  // no peers
  ASSERT_TRUE(outbox.add_peer("node-b", 0));
  ASSERT_TRUE(outbox.add_peer("node-c", 0));
  ASSERT_EQ(outbox.ack(ack_from("node-b", 4)), AckOutcome::accepted);
  EXPECT_EQ(outbox.acked_by_all(), 0U);
  ASSERT_EQ(outbox.ack(ack_from("node-c", 2)), AckOutcome::accepted);
  EXPECT_EQ(outbox.acked_by_all(), 2U);
}

TEST(InvalidationOutbox, WindowEvictsTheOldestByCount) {
  InvalidationOutbox outbox("node-a", kEpoch, {.max_entries = 4, .max_bytes = 1 << 20});
  ASSERT_TRUE(outbox.add_peer("node-b", 0));
  add_times(outbox, 101, 106);  // sequences 1..6; 1 and 2 evicted
  EXPECT_EQ(outbox.retained_count(), 4U);
  EXPECT_EQ(outbox.oldest_retained(), 3U);
  EXPECT_EQ(outbox.missed_until_ms(), 102U);
  EXPECT_EQ(outbox.pending("node-b"), 6U);  // evicted ones count
  EXPECT_TRUE(outbox.missed("node-b"));
}

TEST(InvalidationOutbox, PeerWhoseAckFellOutOfTheWindowGetsAMissedBatch) {
  InvalidationOutbox outbox("node-a", kEpoch, {.max_entries = 4, .max_bytes = 1 << 20});
  ASSERT_TRUE(outbox.add_peer("node-b", 0));
  ASSERT_TRUE(outbox.add_peer("node-c", 0));
  add_times(outbox, 101, 102);
  ASSERT_EQ(outbox.ack(ack_from("node-c", 2)), AckOutcome::accepted);
  add_times(outbox, 103, 106);  // evicts sequences 1 and 2 (times 101, 102)
  EXPECT_TRUE(outbox.missed("node-b"));
  EXPECT_FALSE(outbox.missed("node-c"));  // acked through 2: its next, 3, is retained

  const auto missed = outbox.batch_for("node-b");
  ASSERT_TRUE(missed);
  EXPECT_EQ(missed->first_seq, 3U);
  ASSERT_TRUE(missed->missed_until_ms);
  EXPECT_EQ(*missed->missed_until_ms, 102U);
  EXPECT_EQ(missed->entries.size(), 4U);
  const auto normal = outbox.batch_for("node-c");
  ASSERT_TRUE(normal);
  EXPECT_EQ(normal->first_seq, 3U);
  EXPECT_FALSE(normal->missed_until_ms);

  // The receiver that had applied through 1 takes the jump and acks it all.
  InvalidationSequence receiver;
  InvalidationBatch first = *missed;
  first.first_seq = 1;
  first.missed_until_ms.reset();
  first.entries.resize(1);
  ASSERT_EQ(receiver.accept(first).verdict, SequenceVerdict::apply);
  const SequenceDecision d = receiver.accept(*missed);
  EXPECT_EQ(d.verdict, SequenceVerdict::missed);
  EXPECT_EQ(d.acked_through, 6U);
  ASSERT_EQ(outbox.ack(ack_from("node-b", d.acked_through)), AckOutcome::accepted);
  EXPECT_FALSE(outbox.missed("node-b"));
  EXPECT_EQ(outbox.pending("node-b"), 0U);
}

TEST(InvalidationOutbox, MissedUntilIsTheLatestEvictedTimeNotTheLast) {
  // Wall clocks can step back: the largest evicted time bounds every dropped purge.
  InvalidationOutbox outbox("node-a", kEpoch, {.max_entries = 1, .max_bytes = 1 << 20});
  ASSERT_TRUE(outbox.add(url(500)).ok());
  ASSERT_TRUE(outbox.add(url(300)).ok());
  ASSERT_TRUE(outbox.add(url(400)).ok());
  EXPECT_EQ(outbox.missed_until_ms(), 500U);
}

TEST(InvalidationOutbox, WindowEvictsByBytesButKeepsTheNewest) {
  const std::size_t entry = invalidation_entry_bytes(url(1, 100));
  InvalidationOutbox outbox("node-a", kEpoch, {.max_entries = 100, .max_bytes = 3 * entry});
  for (std::uint64_t t = 1; t <= 5; ++t) ASSERT_TRUE(outbox.add(url(t, 100)).ok());
  EXPECT_EQ(outbox.retained_count(), 3U);
  EXPECT_EQ(outbox.retained_bytes(), 3 * entry);
  EXPECT_EQ(outbox.oldest_retained(), 3U);
  // One entry larger than the whole window is still retained, alone.
  ASSERT_TRUE(outbox.add(url(6, kMaxInvalidationKeyBytes)).ok());
  EXPECT_EQ(outbox.retained_count(), 1U);
  EXPECT_EQ(outbox.oldest_retained(), 6U);
  EXPECT_EQ(outbox.missed_until_ms(), 5U);
}

TEST(InvalidationOutbox, BatchStopsAtTheEntryBound) {
  InvalidationOutbox outbox("node-a", kEpoch);
  ASSERT_TRUE(outbox.add_peer("node-b", 0));
  add_times(outbox, 1, 600);
  auto batch = outbox.batch_for("node-b");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->entries.size(), kMaxInvalidationEntries);
  EXPECT_EQ(batch->last_seq(), 256U);
  EXPECT_FALSE(check_invalidations(*batch));
  ASSERT_EQ(outbox.ack(ack_from("node-b", batch->last_seq())), AckOutcome::accepted);
  batch = outbox.batch_for("node-b");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->first_seq, 257U);
  EXPECT_EQ(batch->last_seq(), 512U);
}

TEST(InvalidationOutbox, BatchStopsAtThePayloadBound) {
  InvalidationOutbox outbox("node-a", kEpoch, {.max_entries = 100, .max_bytes = 8 << 20});
  ASSERT_TRUE(outbox.add_peer("node-b", 0));
  for (std::uint64_t t = 1; t <= 40; ++t) {
    ASSERT_TRUE(outbox.add(url(t, kMaxInvalidationKeyBytes)).ok());
  }
  const auto batch = outbox.batch_for("node-b");
  ASSERT_TRUE(batch);
  // 31 entries of 8,203 bytes fit in 256 KiB; 32 do not.
  EXPECT_EQ(batch->entries.size(), 31U);
  EXPECT_FALSE(check_invalidations(*batch));
  EXPECT_TRUE(encode_invalidations(*batch, "secret").ok());
}

}  // namespace
}  // namespace sumcache::protocol
