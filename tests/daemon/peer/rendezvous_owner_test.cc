// The owner of a key under cluster.miss_policy "owner" (docs/peers.md, "Miss
// policy"): every node computes it alone, so it must depend on the key and the
// live set only, spread keys evenly, and move few keys when the set changes.

#include "daemon/peer/rendezvous_owner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace sumcache::daemon {
namespace {

std::string key(std::size_t i) {
  return "http://origin.example:8080/obj/" + std::to_string(i) + "?max_age=60";
}

// The owner's id for each of `count` keys.
std::vector<std::string_view> owners(const std::vector<std::string_view>& nodes,
                                     std::size_t count) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(nodes[rendezvous_owner(key(i), nodes)]);
  return out;
}

TEST(RendezvousOwner, ALoneNodeOwnsEveryKey) {
  const std::vector<std::string_view> one{"node-a"};
  for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(rendezvous_owner(key(i), one), 0U);
}

TEST(RendezvousOwner, TheOrderOfTheLiveSetDoesNotMatter) {
  std::vector<std::string_view> nodes{"node-a", "node-b", "node-c", "node-d"};
  const auto before = owners(nodes, 2000);
  std::reverse(nodes.begin(), nodes.end());
  EXPECT_EQ(owners(nodes, 2000), before);
  std::rotate(nodes.begin(), nodes.begin() + 1, nodes.end());
  EXPECT_EQ(owners(nodes, 2000), before);
}

TEST(RendezvousOwner, PinnedOwnersSoThatEveryBuildAgrees) {
  // Nodes of one cluster must pick the same owner whatever their build: a
  // changed hash would send each node's misses to a different owner.
  EXPECT_EQ(rendezvous_seed("node-a"), 3944915218758188361U);
  EXPECT_EQ(rendezvous_weight("http://example.com/a?b=1", rendezvous_seed("node-a")),
            14731369409873858785U);
  const std::vector<std::string_view> nodes{"node-a", "node-b", "node-c", "node-d"};
  std::string first;
  for (std::size_t i = 0; i < 8; ++i) first += nodes[rendezvous_owner(key(i), nodes)].back();
  EXPECT_EQ(first, "badbacbb");
}

TEST(RendezvousOwner, KeysSpreadEvenlyOverTheNodes) {
  const std::vector<std::string_view> nodes{"node-a", "node-b", "node-c", "node-d"};
  constexpr std::size_t kKeys = 40000;
  std::vector<std::size_t> counts(nodes.size());
  for (std::size_t i = 0; i < kKeys; ++i) ++counts[rendezvous_owner(key(i), nodes)];
  // Binomial(40000, 1/4): sd 87; 5% of the mean is more than five sd.
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    EXPECT_NEAR(static_cast<double>(counts[n]), kKeys / 4.0, kKeys / 4.0 * 0.05) << nodes[n];
  }
}

TEST(RendezvousOwner, ANodeThatLeavesMovesOnlyItsOwnKeys) {
  const std::vector<std::string_view> four{"node-a", "node-b", "node-c", "node-d"};
  const std::vector<std::string_view> without_c{"node-a", "node-b", "node-d"};
  constexpr std::size_t kKeys = 20000;
  const auto before = owners(four, kKeys);
  const auto after = owners(without_c, kKeys);
  std::vector<std::size_t> inherited(without_c.size());
  for (std::size_t i = 0; i < kKeys; ++i) {
    if (before[i] != "node-c") {
      EXPECT_EQ(after[i], before[i]) << key(i);
    } else {
      ++inherited[static_cast<std::size_t>(std::find(without_c.begin(), without_c.end(), after[i]) -
                                           without_c.begin())];
    }
  }
  // node-c's quarter is shared by the three others, each about a third of it.
  for (std::size_t n = 0; n < without_c.size(); ++n) {
    EXPECT_NEAR(static_cast<double>(inherited[n]), kKeys / 12.0, kKeys / 12.0 * 0.1)
        << without_c[n];
  }
}

TEST(RendezvousOwner, ANodeThatJoinsTakesOnlyKeysItNowOwns) {
  const std::vector<std::string_view> three{"node-a", "node-b", "node-c"};
  const std::vector<std::string_view> four{"node-a", "node-b", "node-c", "node-e"};
  constexpr std::size_t kKeys = 20000;
  const auto before = owners(three, kKeys);
  const auto after = owners(four, kKeys);
  std::size_t moved = 0;
  for (std::size_t i = 0; i < kKeys; ++i) {
    if (after[i] == before[i]) continue;
    EXPECT_EQ(after[i], "node-e") << key(i);
    ++moved;
  }
  // The newcomer takes about a quarter, and nothing moves between the others.
  EXPECT_NEAR(static_cast<double>(moved), kKeys / 4.0, kKeys / 4.0 * 0.05);
}

}  // namespace
}  // namespace sumcache::daemon
