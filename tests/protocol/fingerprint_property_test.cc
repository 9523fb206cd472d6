// Property: a receiver that gets a fingerprint full and then any sequence of
// fingerprint deltas, applying each to its own copy of the set (as the
// directory does) after PeerSummary admits it, holds exactly the sender's
// multiset; replays change nothing; a missed delta is noticed and a full
// repairs it. Every message crosses the real encoder and decoder. Fixed seeds,
// bounded steps.

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/peer_summary.h"
#include "protocol/protocol_error.h"
#include "tests/protocol/fingerprint_test_util.h"
#include "tests/protocol/protocol_test_util.h"

namespace sumcache::protocol {
namespace {

using testing::kSecret;
using testing::secret_for_known_nodes;
using Set = std::vector<std::uint64_t>;

SummaryMessage received(const std::string& wire) {
  auto decoded = decode(wire, secret_for_known_nodes());
  EXPECT_TRUE(decoded.ok()) << decoded.error().message();
  return decoded.ok() ? std::move(decoded).value() : SummaryMessage{};
}

// The sender: a multiset of fingerprints (a small universe, so repeats and
// removals of repeated values are common) and the set at every sequence.
class Sender {
 public:
  explicit Sender(std::uint64_t universe) : universe_(universe) { history_.emplace(1, Set{}); }
  void mutate(std::mt19937_64& rng) {
    const std::uint64_t ops = rng() % 40;
    for (std::uint64_t i = 0; i < ops; ++i) {
      if (!set_.empty() && rng() % 2 == 0) {
        auto it = set_.begin();
        std::advance(it, static_cast<long>(rng() % set_.size()));
        set_.erase(it);
      } else {
        set_.insert(rng() % universe_);
      }
    }
    history_.emplace(++sequence_, sorted());
  }
  Set sorted() const { return {set_.begin(), set_.end()}; }
  SummaryInfo info() const { return testing::fingerprint_info(universe_, set_.size(), sequence_); }
  std::string full() const { return encode_fingerprint_full(info(), sorted(), kSecret).value(); }
  std::string delta_from(std::uint64_t base) const {
    return encode_fingerprint_delta(info(), base,
                                    filters::fingerprint_difference(history_.at(base), sorted()), kSecret)
        .value();
  }
  std::uint64_t sequence() const { return sequence_; }
  std::size_t size_at(std::uint64_t sequence) const { return history_.at(sequence).size(); }

 private:
  std::uint64_t universe_;
  std::multiset<std::uint64_t> set_;
  std::uint64_t sequence_ = 1;
  std::map<std::uint64_t, Set> history_;
};

// PeerSummary beside the receiver's copy of the set, as the daemon keeps a
// PeerSummary beside its directory: admit, apply to the set, commit.
struct Receiver {
  PeerSummary summary;
  Set set;
  std::error_code take(const SummaryMessage& m) {
    const auto verdict = summary.admit(m);
    if (!verdict) return verdict.error();
    if (!*verdict) return {};
    set = m.kind == MessageKind::fingerprint_full
              ? m.fingerprints.added
              : testing::apply_fingerprint_delta(set, m.fingerprints);
    summary.commit(m);
    return {};
  }
};

TEST(FingerprintProperty, AnyDeltaSequenceReproducesTheSendersMultiset) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed);
    Sender sender(1 + rng() % 300);
    Receiver receiver;
    ASSERT_FALSE(receiver.take(received(sender.full())));
    std::vector<std::string> sent;
    for (int step = 0; step < 40; ++step) {
      sender.mutate(rng);
      sent.push_back(sender.delta_from(sender.sequence() - 1));
      ASSERT_FALSE(receiver.take(received(sent.back()))) << "seed " << seed << " step " << step;
      ASSERT_EQ(receiver.set, sender.sorted()) << "seed " << seed << " step " << step;
      ASSERT_EQ(receiver.summary.sequence(), sender.sequence());
      ASSERT_EQ(receiver.summary.entries(), receiver.set.size());
      ASSERT_TRUE(receiver.summary.holds_fingerprints());

      if (step % 5 == 4) {
        const std::string& old = sent[rng() % (sent.size() - 1)];
        ASSERT_EQ(receiver.summary.admit(received(old)).value(), false);
        ASSERT_FALSE(receiver.take(received(old)));
        ASSERT_EQ(receiver.set, sender.sorted()) << "replay changed the set";
        ASSERT_EQ(receiver.summary.sequence(), sender.sequence());
      }
    }
  }
}

TEST(FingerprintProperty, DeltasSpanningSeveralSequencesApplyOnTheirBase) {
  std::mt19937_64 rng(40);
  Sender sender(1000);
  Receiver receiver;
  ASSERT_FALSE(receiver.take(received(sender.full())));
  for (int step = 0; step < 20; ++step) {
    const std::uint64_t base = sender.sequence();
    for (std::uint64_t i = 0; i < 1 + rng() % 4; ++i) sender.mutate(rng);
    ASSERT_FALSE(receiver.take(received(sender.delta_from(base))));
    ASSERT_EQ(receiver.set, sender.sorted());
  }
}

TEST(FingerprintProperty, MissedDeltaIsASequenceGapAndAFullResynchronises) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed);
    Sender sender(50 + rng() % 3000);
    Receiver receiver;
    ASSERT_FALSE(receiver.take(received(sender.full())));
    sender.mutate(rng);
    ASSERT_FALSE(receiver.take(received(sender.delta_from(sender.sequence() - 1))));
    const Set held = receiver.set;
    const std::uint64_t held_sequence = receiver.summary.sequence();

    sender.mutate(rng);
    const std::string lost = sender.delta_from(sender.sequence() - 1);
    sender.mutate(rng);
    EXPECT_EQ(receiver.take(received(sender.delta_from(sender.sequence() - 1))),
              ProtocolErrc::sequence_gap);
    // A delta from an earlier base than the one held will not do either.
    EXPECT_EQ(receiver.take(received(sender.delta_from(held_sequence - 1))),
              ProtocolErrc::sequence_gap);
    EXPECT_EQ(receiver.set, held);
    EXPECT_EQ(receiver.summary.sequence(), held_sequence);

    ASSERT_FALSE(receiver.take(received(sender.full())));
    EXPECT_EQ(receiver.set, sender.sorted());
    EXPECT_FALSE(receiver.take(received(lost)));  // late now: ignored
    EXPECT_EQ(receiver.set, sender.sorted());
    sender.mutate(rng);
    ASSERT_FALSE(receiver.take(received(sender.delta_from(sender.sequence() - 1))));
    EXPECT_EQ(receiver.set, sender.sorted());
  }
}

// Two senders under one node id and epoch (a restarted node that reused its
// epoch, or a bug) write deltas from sets of other sizes on the same base
// sequence: the base size tells the receiver the delta is not from its set.
TEST(FingerprintProperty, DeltaFromASetOfAnotherSizeIsASequenceGap) {
  std::mt19937_64 rng(3);
  Sender held(500);
  Sender other(500);
  for (int i = 0; i < 3; ++i) other.mutate(rng);
  Receiver receiver;
  ASSERT_FALSE(receiver.take(received(held.full())));
  for (int i = 0; i < 2; ++i) held.mutate(rng);
  ASSERT_FALSE(receiver.take(received(held.delta_from(1))));
  // `other` is at sequence 4 with a set of another size than held's at 3.
  ASSERT_NE(other.size_at(3), receiver.set.size());
  const std::string foreign = other.delta_from(3);
  const Set before = receiver.set;
  EXPECT_EQ(receiver.take(received(foreign)), ProtocolErrc::sequence_gap);
  EXPECT_EQ(receiver.set, before);
}

}  // namespace
}  // namespace sumcache::protocol
