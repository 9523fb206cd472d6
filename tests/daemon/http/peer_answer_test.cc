// classify_peer_answer: what a peer's answer to an only-if-cached request
// counts as (docs/peers.md, docs/interop.md).

#include "daemon/http/peer_answer.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

// RFC 9111 §5.2.1.7: a cache that cannot answer only-if-cached from its store answers 504.
TEST(PeerAnswer, GatewayTimeoutIsAFalseHit) {
  EXPECT_EQ(classify_peer_answer(504, ""), PeerAnswer::false_hit);
  EXPECT_EQ(classify_peer_answer(504, "MISS from squid-1"), PeerAnswer::false_hit);
}

// Squid's TCP_MISS: its X-Cache says MISS, the answer did not come from its store.
TEST(PeerAnswer, SquidMissIsAFalseHit) {
  EXPECT_EQ(classify_peer_answer(200, "MISS from squid-1"), PeerAnswer::false_hit);
  EXPECT_EQ(classify_peer_answer(200, "miss from squid-1"), PeerAnswer::false_hit);
  EXPECT_EQ(classify_peer_answer(200, "MISS"), PeerAnswer::false_hit);
}

TEST(PeerAnswer, StoredCopiesAreHitsWhateverTheirStatus) {
  EXPECT_EQ(classify_peer_answer(200, "HIT from squid-1"), PeerAnswer::hit);
  EXPECT_EQ(classify_peer_answer(404, "HIT"), PeerAnswer::hit);
  EXPECT_EQ(classify_peer_answer(200, ""), PeerAnswer::hit);
  // A token that merely begins like MISS is not MISS.
  EXPECT_EQ(classify_peer_answer(200, "MISSING"), PeerAnswer::hit);
}

TEST(PeerAnswer, SumcachesOwnRefusalIsAnError) {
  EXPECT_EQ(classify_peer_answer(403, "ERROR"), PeerAnswer::error);
  EXPECT_EQ(classify_peer_answer(503, "ERROR"), PeerAnswer::error);
}

}  // namespace
}  // namespace sumcache::daemon
