#include "daemon/peer/peer_table.h"

#include <gtest/gtest.h>

#include "protocol/encode.h"
#include "protocol/decode.h"

namespace sumcache::daemon {
namespace {

using namespace std::chrono_literals;

std::vector<config::PeerConfig> three_peers() {
  return {{"a", "127.0.0.1", 1, 2, 3, 1}, {"b", "127.0.0.1", 4, 5, 6, 1},
          {"c", "127.0.0.1", 7, 8, 9, 1}};
}

// A full summary of one key from peer `id`, as the exchange applies it.
void give_summary(PeerTable& table, std::size_t i, SteadyTime at) {
  auto bits = filters::BloomFilter::create({1024, 4}).value();
  bits.add("http://x/");
  protocol::SummaryInfo info{table.get(i)->config.id, 7, 1, {1024, 4}, {}, 1};
  const std::string secret = "0123456789abcdef";
  auto message = protocol::decode(protocol::encode_full(info, bits, secret).value(),
                                  [&](std::string_view) { return secret; });
  ASSERT_TRUE(message.ok()) << message.error().message();
  std::lock_guard lock(table.mutex());
  ASSERT_FALSE(table.get(i)->link.summary.apply(*message));
  table.get(i)->link.summary_at = at;
  table.get(i)->link.state = PeerState::up;
}

TEST(PeerTable, SlotsFollowTheConfigOrderAndIdsAreFound) {
  PeerTable table(three_peers());
  EXPECT_EQ(table.size(), 3U);
  EXPECT_EQ(table.get(2)->slot, 2U);
  EXPECT_EQ(table.find("b"), 1U);
  EXPECT_FALSE(table.find("z").has_value());
}

TEST(PeerTable, OnlyPeersWithAFreshSummaryAreEligibleInSummaryMode) {
  PeerTable table(three_peers());
  const auto now = std::chrono::steady_clock::now();
  table.refresh_eligible(now, 1000ms, true);
  EXPECT_EQ(table.eligible(), 0U);  // no summaries yet
  give_summary(table, 0, now);
  give_summary(table, 2, now - 2000ms);  // older than the expiry
  table.refresh_eligible(now, 1000ms, true);
  EXPECT_EQ(table.eligible(), 0b001U);
  // ICP needs no summary: every peer that is not down.
  table.refresh_eligible(now, 1000ms, false);
  EXPECT_EQ(table.eligible(), 0b101U);  // b was never up
}

TEST(PeerTable, FailuresMakeAPeerSuspectThenDownAndBackOff) {
  PeerTable table(three_peers());
  const auto now = std::chrono::steady_clock::now();
  give_summary(table, 1, now);
  table.refresh_eligible(now, 10s, true);
  ASSERT_EQ(table.eligible(), 0b010U);
  table.record_failure(*table.get(1), "connect: refused", now);
  auto s = table.status(now, 10s)[1];
  EXPECT_EQ(s.state, PeerState::suspect);
  EXPECT_EQ(s.last_error, "connect: refused");
  EXPECT_EQ(table.eligible(), 0b010U);  // suspect peers are still asked
  table.record_failure(*table.get(1), "x", now);
  table.record_failure(*table.get(1), "x", now);
  EXPECT_EQ(table.status(now, 10s)[1].state, PeerState::down);
  EXPECT_EQ(table.eligible(), 0U);  // taken out at once, without waiting for a refresh
  {
    std::lock_guard lock(table.mutex());
    EXPECT_GT(table.get(1)->link.retry_at, now + 500ms);  // 0.8 s after the third failure
    EXPECT_TRUE(table.get(1)->link.needs_full);
  }
  table.record_success(*table.get(1));
  table.refresh_eligible(now, 10s, true);
  EXPECT_EQ(table.status(now, 10s)[1].state, PeerState::up);
  EXPECT_EQ(table.eligible(), 0b010U);
}

TEST(PeerTable, RttIsSmoothedAsTcpDoes) {
  PeerTable table(three_peers());
  PeerTable::record_rtt(*table.get(0), 800us);
  EXPECT_EQ(table.get(0)->srtt_us.load(), 800U);  // the first sample is taken whole
  PeerTable::record_rtt(*table.get(0), 1600us);
  EXPECT_EQ(table.get(0)->srtt_us.load(), 800U - 100U + 200U);  // 7/8 old + 1/8 new
}

TEST(PeerTable, StatusReportsTheSummaryAndItsFill) {
  PeerTable table(three_peers());
  const auto now = std::chrono::steady_clock::now();
  give_summary(table, 0, now - 1500ms);
  table.get(0)->counters.false_hits = 3;
  const auto s = table.status(now, 1000ms)[0];
  EXPECT_TRUE(s.has_summary);
  EXPECT_TRUE(s.summary_expired);
  EXPECT_EQ(s.summary_epoch, 7U);
  EXPECT_EQ(s.m, 1024U);
  EXPECT_EQ(s.k, 4U);
  EXPECT_NEAR(s.summary_age_seconds, 1.5, 0.01);
  EXPECT_GT(s.fill_ratio, 0.0);
  EXPECT_LE(s.fill_ratio, 4.0 / 1024);
  EXPECT_EQ(s.false_hits, 3U);
  EXPECT_FALSE(table.status(now, 1000ms)[1].has_summary);
}

TEST(PeerTable, APeerAddedTakesTheLowestFreeSlotAndIsFound) {
  PeerTable table(three_peers());
  auto d = table.add({"d", "127.0.0.2", 10, 11, 12, 2}, PeerSource::admin);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->slot, 3U);
  EXPECT_EQ(table.find("d"), 3U);
  EXPECT_EQ(table.size(), 4U);
  EXPECT_EQ(table.occupied(), 0b1111U);
  EXPECT_EQ(d->weight.load(), 2U);
  EXPECT_EQ(table.status(std::chrono::steady_clock::now(), 1s)[3].source, PeerSource::admin);
}

TEST(PeerTable, ARemovedPeerLeavesTheMaskAtOnceAndStaysValidWhileHeld) {
  PeerTable table(three_peers());
  const auto now = std::chrono::steady_clock::now();
  give_summary(table, 1, now);
  table.refresh_eligible(now, 10s, true);
  ASSERT_EQ(table.eligible(), 0b010U);
  const std::shared_ptr<Peer> held = table.get(1);  // a worker's, mid-request
  const auto removed = table.remove("b");
  ASSERT_EQ(removed, held);
  EXPECT_EQ(table.eligible(), 0U);
  EXPECT_FALSE(table.get(1));
  EXPECT_FALSE(table.find("b"));
  EXPECT_EQ(table.size(), 2U);
  EXPECT_EQ(held->config.id, "b");  // still readable
  // A failure reported for it afterwards touches no other peer's bit.
  table.record_failure(*held, "x", now);
  EXPECT_FALSE(table.remove("b"));
  for (const auto& s : table.status(now, 10s)) EXPECT_NE(s.id, "b");
}

TEST(PeerTable, ASlotIsReusedOnlyAfterItIsReleased) {
  PeerTable table(three_peers());
  const auto b = table.remove("b");
  ASSERT_TRUE(b);
  // Not released yet (its directory column not cleared): the next peer goes elsewhere.
  auto d = table.add({"d", "127.0.0.2", 10, 11, 12, 1}, PeerSource::admin);
  EXPECT_EQ(d->slot, 3U);
  table.release(b->slot);
  auto e = table.add({"e", "127.0.0.3", 10, 11, 12, 1}, PeerSource::admin);
  EXPECT_EQ(e->slot, 1U);
  // Released again while occupied: nothing happens.
  table.release(1);
  auto f = table.add({"f", "127.0.0.4", 10, 11, 12, 1}, PeerSource::admin);
  EXPECT_EQ(f->slot, 4U);
  // The removed peer is not its slot's current one.
  std::lock_guard lock(table.mutex());
  EXPECT_FALSE(table.current(*b));
  EXPECT_TRUE(table.current(*e));
}

TEST(PeerTable, ItHoldsAtMost64Peers) {
  PeerTable table({});
  for (unsigned i = 0; i < PeerTable::kSlots; ++i) {
    ASSERT_TRUE(table.add(
        {"p" + std::to_string(i), "127.0.0.1", static_cast<std::uint16_t>(i + 1), 1, 1, 1},
        PeerSource::config));
  }
  EXPECT_EQ(table.occupied(), ~std::uint64_t{0});
  EXPECT_FALSE(table.add({"one-more", "127.0.0.2", 1, 1, 1, 1}, PeerSource::admin));
}

}  // namespace
}  // namespace sumcache::daemon
