// ReplayWindow (docs/protocol.md, "Channel authentication"): a nonce is taken
// once, memory is bounded, and what is forgotten stays refused. Times passed in.

#include "protocol/replay_window.h"

#include <gtest/gtest.h>

#include <string>

#include "protocol/peer_auth.h"

namespace sumcache::protocol {
namespace {

constexpr std::int64_t kNow = 1700000000;

std::string nonce(unsigned i) {
  char text[33];
  std::snprintf(text, sizeof text, "%032x", i);
  return text;
}

TEST(ReplayWindow, ANonceIsTakenOnceAndAReplayIsRefused) {
  ReplayWindow w;
  EXPECT_EQ(w.admit(nonce(1), kNow, kNow), ChannelAuthErrc::ok);
  EXPECT_EQ(w.admit(nonce(1), kNow, kNow + 5), ChannelAuthErrc::replayed);
  EXPECT_EQ(w.admit(nonce(2), kNow, kNow + 5), ChannelAuthErrc::ok);
  EXPECT_EQ(w.size(), 2U);
}

TEST(ReplayWindow, WhenFullTheOldestGoesAndTheFloorRisesToItsTime) {
  ReplayWindow w(4);
  for (unsigned i = 0; i < 4; ++i) {
    ASSERT_EQ(w.admit(nonce(i), kNow + i, kNow), ChannelAuthErrc::ok);
  }
  EXPECT_EQ(w.floor(), -1);
  EXPECT_EQ(w.admit(nonce(10), kNow + 10, kNow), ChannelAuthErrc::ok);
  EXPECT_EQ(w.size(), 4U);
  EXPECT_EQ(w.floor(), kNow);
  // The forgotten one, replayed: at the floor, so refused all the same.
  EXPECT_EQ(w.admit(nonce(0), kNow, kNow), ChannelAuthErrc::expired);
  EXPECT_EQ(w.admit(nonce(1), kNow + 1, kNow), ChannelAuthErrc::replayed);
}

TEST(ReplayWindow, AHeadThatWouldEvictItsOwnTimeIsRefused) {
  ReplayWindow w(2);
  ASSERT_EQ(w.admit(nonce(1), kNow, kNow), ChannelAuthErrc::ok);
  ASSERT_EQ(w.admit(nonce(2), kNow + 1, kNow), ChannelAuthErrc::ok);
  EXPECT_EQ(w.admit(nonce(3), kNow, kNow), ChannelAuthErrc::expired);
  EXPECT_EQ(w.admit(nonce(3), kNow + 2, kNow), ChannelAuthErrc::ok);
}

TEST(ReplayWindow, EntriesOlderThanTheWindowAreForgottenAndStayRefused) {
  ReplayWindow w;
  ASSERT_EQ(w.admit(nonce(1), kNow, kNow), ChannelAuthErrc::ok);
  const std::int64_t later = kNow + kPeerAuthWindowSeconds + 1;
  EXPECT_EQ(w.admit(nonce(2), later, later), ChannelAuthErrc::ok);
  EXPECT_EQ(w.size(), 1U);
  // The clock stepped back: the forgotten head is still not taken.
  EXPECT_EQ(w.admit(nonce(1), kNow, kNow), ChannelAuthErrc::expired);
}

TEST(ReplayWindow, MemoryIsBoundedUnderAFlood) {
  ReplayWindow w;
  for (unsigned i = 0; i < 3 * ReplayWindow::kDefaultCapacity; ++i) {
    w.admit(nonce(i), kNow + i / 1000, kNow);
  }
  EXPECT_LE(w.size(), ReplayWindow::kDefaultCapacity);
}

}  // namespace
}  // namespace sumcache::protocol
