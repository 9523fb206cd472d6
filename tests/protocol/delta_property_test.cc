// Property: a receiver that gets a full summary and then any sequence of
// deltas holds exactly the sender's current bit view; replays change nothing;
// a missed delta is noticed, and a full summary repairs it. Every message
// crosses the real encoder and decoder. Fixed seeds, bounded steps.

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "filters/counting_bloom_filter.h"
#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/peer_summary.h"
#include "protocol/protocol_error.h"
#include "tests/protocol/protocol_test_util.h"

namespace sumcache::protocol {
namespace {

using testing::kSecret;
using testing::secret_for_known_nodes;

SummaryMessage received(const std::string& wire) {
  auto decoded = decode(wire, secret_for_known_nodes());
  EXPECT_TRUE(decoded.ok()) << decoded.error().message();
  return std::move(decoded).value();
}

// "Bit i is now v" for every bit that differs between `base` and `now`.
std::vector<filters::BitChange> diff(const filters::BloomFilter& base,
                                     const filters::BloomFilter& now) {
  std::vector<filters::BitChange> out;
  for (std::uint64_t i = 0; i < now.params().m; ++i) {
    if (base.test_bit(i) != now.test_bit(i)) out.push_back({i, now.test_bit(i)});
  }
  return out;
}

class Sender {
 public:
  Sender(std::uint64_t m, std::uint32_t k) : bits_(*filters::BloomFilter::create({m, k})) {
    history_.emplace(sequence_, bits_);
  }
  void mutate(std::mt19937_64& rng) {
    const std::uint64_t ops = rng() % 60;
    for (std::uint64_t i = 0; i < ops; ++i) bits_.set_bit(rng() % bits_.params().m, rng() % 2 == 0);
    history_.emplace(++sequence_, bits_);
  }
  SummaryInfo info() const {
    SummaryInfo info = testing::info_for(bits_, sequence_);
    info.entries = sequence_ * 7;
    return info;
  }
  std::string full() const { return encode_full(info(), bits_, kSecret).value(); }
  std::string delta_from(std::uint64_t base) const {
    return encode_delta(info(), base, diff(history_.at(base), bits_), kSecret).value();
  }
  std::uint64_t sequence() const { return sequence_; }
  const filters::BloomFilter& bits() const { return bits_; }

 private:
  filters::BloomFilter bits_;
  std::uint64_t sequence_ = 1;
  std::map<std::uint64_t, filters::BloomFilter> history_;
};

TEST(DeltaProperty, AnyDeltaSequenceReproducesTheSendersBitView) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed);
    Sender sender(64 + rng() % 5000, 1 + static_cast<std::uint32_t>(rng() % 4));
    PeerSummary receiver;
    ASSERT_FALSE(receiver.apply(received(sender.full())));
    std::vector<std::string> sent;
    for (int step = 0; step < 40; ++step) {
      sender.mutate(rng);
      sent.push_back(sender.delta_from(sender.sequence() - 1));
      ASSERT_FALSE(receiver.apply(received(sent.back()))) << "seed " << seed << " step " << step;
      ASSERT_EQ(receiver.bits(), sender.bits()) << "seed " << seed << " step " << step;
      ASSERT_EQ(receiver.sequence(), sender.sequence());
      ASSERT_EQ(receiver.entries(), sender.info().entries);

      if (step % 5 == 4) {
        const std::string& old = sent[rng() % (sent.size() - 1)];
        ASSERT_FALSE(receiver.apply(received(old)));
        ASSERT_EQ(receiver.bits(), sender.bits()) << "replay changed the state";
        ASSERT_EQ(receiver.sequence(), sender.sequence());
      }
    }
  }
}

TEST(DeltaProperty, MissedDeltaIsASequenceGapAndAFullResynchronises) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed);
    Sender sender(64 + rng() % 3000, 2);
    PeerSummary receiver;
    ASSERT_FALSE(receiver.apply(received(sender.full())));
    sender.mutate(rng);
    ASSERT_FALSE(receiver.apply(received(sender.delta_from(sender.sequence() - 1))));
    const auto held = receiver.bits();

    sender.mutate(rng);
    const std::string lost = sender.delta_from(sender.sequence() - 1);
    sender.mutate(rng);
    EXPECT_EQ(receiver.apply(received(sender.delta_from(sender.sequence() - 1))),
              ProtocolErrc::sequence_gap);
    EXPECT_EQ(receiver.bits(), held);

    ASSERT_FALSE(receiver.apply(received(sender.full())));
    EXPECT_EQ(receiver.bits(), sender.bits());
    EXPECT_FALSE(receiver.apply(received(lost)));  // late now: ignored
    EXPECT_EQ(receiver.bits(), sender.bits());
    sender.mutate(rng);
    ASSERT_FALSE(receiver.apply(received(sender.delta_from(sender.sequence() - 1))));
    EXPECT_EQ(receiver.bits(), sender.bits());
  }
}

// The publisher's path: the counting filter's change log gives the flipped
// positions, its bit view their current values.
TEST(DeltaProperty, CountingFilterChangeLogDrivesExactDeltas) {
  auto counting = *filters::CountingBloomFilter::create({20'000, 3});
  for (int i = 0; i < 1000; ++i) counting.add("http://a.example/" + std::to_string(i));
  counting.mark();
  SummaryInfo info = testing::info_for(counting.bit_view(), 1);
  PeerSummary receiver;
  ASSERT_FALSE(receiver.apply(received(encode_full(info, counting.bit_view(), kSecret).value())));
  int next_key = 1000;
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < 50; ++i) {
      ASSERT_FALSE(counting.remove("http://a.example/" + std::to_string(next_key - 1000)));
      counting.add("http://a.example/" + std::to_string(next_key++));
    }
    auto flipped = counting.take_changes();
    ASSERT_TRUE(flipped.ok());
    const auto view = counting.bit_view();
    std::vector<filters::BitChange> changes;
    for (std::uint64_t i : *flipped) changes.push_back({i, view.test_bit(i)});
    const std::uint64_t base = info.sequence++;
    ASSERT_FALSE(receiver.apply(received(encode_delta(info, base, changes, kSecret).value())));
    ASSERT_EQ(receiver.bits(), view) << "round " << round;
  }
}

}  // namespace
}  // namespace sumcache::protocol
