#include "daemon/store/index_shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>

namespace sumcache::daemon {
namespace {

filters::Hash128 key(std::uint64_t i) { return filters::Hasher{}(std::to_string(i)); }

std::vector<EntryRef> lru_order(const IndexShard& index, Tier tier) {
  std::vector<EntryRef> order;  // least recent first
  for (EntryRef r = index.least_recent(tier); r != kNoEntry;
       r = index.at(r).prev[static_cast<int>(tier)]) {
    order.push_back(r);
  }
  return order;
}

TEST(IndexShard, VariantsOfAKeyShareOneKeySlot) {
  IndexShard index;
  const auto a = index.add(key(1), 0);
  const auto b = index.add(key(1), 7);
  EXPECT_TRUE(a.new_key);
  EXPECT_FALSE(b.new_key);
  EXPECT_EQ(index.keys(), 1U);
  EXPECT_EQ(index.entries(), 2U);
  EXPECT_EQ(index.find(key(1), 0), a.ref);
  EXPECT_EQ(index.find(key(1), 7), b.ref);
  EXPECT_EQ(index.find(key(1), 9), kNoEntry);
  EXPECT_FALSE(index.erase(a.ref));  // not the last variant
  EXPECT_TRUE(index.erase(b.ref));
  EXPECT_EQ(index.first_variant(key(1)), kNoEntry);
  EXPECT_EQ(index.keys(), 0U);
}

std::vector<std::string> groups_of(const IndexShard& index, const filters::Hash128& k) {
  std::vector<std::string> out;
  index.for_each_group(k, [&](std::string_view g) { out.emplace_back(g); });
  std::sort(out.begin(), out.end());
  return out;
}

// A key's chain is most recently used first: use() and add() put a variant
// in front, so its last one is the one a cap evicts.
TEST(IndexShard, AKeysVariantsAreOrderedByUse) {
  IndexShard index;
  const auto a = index.add(key(1), 3);
  const auto b = index.add(key(1), 5);
  const auto c = index.add(key(1), 7);
  EXPECT_EQ(index.variant_count(key(1)), 3U);
  EXPECT_EQ(index.least_recent_variant(key(1)), a.ref);
  EXPECT_EQ(index.use(key(1), 3), a.ref);
  EXPECT_EQ(index.first_variant(key(1)), a.ref);
  EXPECT_EQ(index.least_recent_variant(key(1)), b.ref);
  EXPECT_EQ(index.use(key(1), 9), kNoEntry);
  EXPECT_EQ(index.use(key(2), 3), kNoEntry);
  index.erase(b.ref);
  EXPECT_EQ(index.least_recent_variant(key(1)), c.ref);
  EXPECT_EQ(index.variant_count(key(1)), 2U);
}

TEST(IndexShard, GroupsOfAKeyFollowItsVariants) {
  IndexShard index;
  const auto a = index.add(key(1), 3, "user-agent");
  index.add(key(1), 5, "user-agent");
  EXPECT_EQ(groups_of(index, key(1)), (std::vector<std::string>{"user-agent"}));
  const auto plain = index.add(key(1), 0);
  const auto origin = index.add(key(1), 9, "origin");
  EXPECT_EQ(groups_of(index, key(1)), (std::vector<std::string>{"", "origin", "user-agent"}));
  index.erase(origin.ref);
  index.erase(plain.ref);
  EXPECT_EQ(groups_of(index, key(1)), (std::vector<std::string>{"user-agent"}));
  EXPECT_EQ(index.groups().mixed_keys(), 0U);
  index.erase(a.ref);
  EXPECT_EQ(index.groups().interned(), 1U);
  index.erase(index.first_variant(key(1)));
  EXPECT_TRUE(groups_of(index, key(1)).empty());
  EXPECT_EQ(index.groups().interned(), 0U);
}

TEST(IndexShard, LruListsOrderByRecencyPerTier) {
  IndexShard index;
  std::vector<EntryRef> refs;
  for (int i = 0; i < 4; ++i) {
    refs.push_back(index.add(key(i), 0).ref);
    index.link(Tier::memory, refs.back());
  }
  index.link(Tier::disk, refs[2]);
  index.link(Tier::disk, refs[0]);
  index.touch(Tier::memory, refs[1]);
  EXPECT_EQ(lru_order(index, Tier::memory),
            (std::vector<EntryRef>{refs[0], refs[2], refs[3], refs[1]}));
  EXPECT_EQ(lru_order(index, Tier::disk), (std::vector<EntryRef>{refs[2], refs[0]}));
  index.erase(refs[2]);
  EXPECT_EQ(lru_order(index, Tier::memory), (std::vector<EntryRef>{refs[0], refs[3], refs[1]}));
  EXPECT_EQ(lru_order(index, Tier::disk), (std::vector<EntryRef>{refs[0]}));
}

// Random adds and erases against a std::map model: finds, counts and the key
// set agree throughout, across table growth and backward-shift deletions.
TEST(IndexShard, AgreesWithAModelUnderRandomChurn) {
  IndexShard index;
  std::map<std::pair<std::uint64_t, std::uint64_t>, EntryRef> model;
  std::mt19937_64 rng(12345);
  for (int op = 0; op < 200'000; ++op) {
    const std::uint64_t k = rng() % 3000;
    const std::uint64_t v = rng() % 3;
    const auto it = model.find({k, v});
    if (it == model.end()) {
      model[{k, v}] = index.add(key(k), v).ref;
    } else {
      index.erase(it->second);
      model.erase(it);
    }
    if (op % 20'000 == 0 || op == 199'999) {
      std::set<std::uint64_t> keys;
      for (const auto& [kv, ref] : model) {
        ASSERT_EQ(index.find(key(kv.first), kv.second), ref);
        keys.insert(kv.first);
      }
      ASSERT_EQ(index.entries(), model.size());
      ASSERT_EQ(index.keys(), keys.size());
      std::size_t seen = 0;
      index.for_each_key([&](const filters::Hash128&) { ++seen; });
      ASSERT_EQ(seen, keys.size());
    }
  }
}

TEST(IndexShard, EntriesStayCompact) {
  // The per-object budget (docs/store.md) rests on this size.
  EXPECT_LE(sizeof(IndexEntry), 80U);
}

}  // namespace
}  // namespace sumcache::daemon
