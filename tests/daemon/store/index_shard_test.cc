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

// A key's chain as the index holds it, most recently used first.
std::vector<EntryRef> chain_of(const IndexShard& index, const filters::Hash128& k) {
  std::vector<EntryRef> chain;
  for (EntryRef r = index.first_variant(k); r != kNoEntry; r = index.at(r).next_variant) {
    chain.push_back(r);
  }
  return chain;
}

// The same chain read backwards, from the key's last variant (its first's
// prev_variant) to its first, then reversed: use() and erase() unlink through
// these links.
std::vector<EntryRef> chain_backwards(const IndexShard& index, const filters::Hash128& k) {
  std::vector<EntryRef> chain;
  const EntryRef first = index.first_variant(k);
  if (first == kNoEntry) return chain;
  for (EntryRef r = index.at(first).prev_variant; chain.size() <= index.entries();
       r = index.at(r).prev_variant) {
    chain.push_back(r);
    if (r == first) break;
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

void expect_chain(const IndexShard& index, const filters::Hash128& k,
                  const std::vector<EntryRef>& expected) {
  EXPECT_EQ(chain_of(index, k), expected);
  EXPECT_EQ(chain_backwards(index, k), expected);
}

TEST(IndexShard, ErasingTheFirstAMiddleOrTheLastVariantKeepsTheChain) {
  IndexShard index;
  std::vector<EntryRef> refs;  // variant v at refs[v]
  for (std::uint64_t v = 0; v < 6; ++v) refs.push_back(index.add(key(1), v).ref);
  // Most recently used first: 5 4 3 2 1 0.
  expect_chain(index, key(1),
               (std::vector<EntryRef>{refs[5], refs[4], refs[3], refs[2], refs[1], refs[0]}));
  EXPECT_FALSE(index.erase(refs[5]));  // the first
  EXPECT_EQ(index.first_variant(key(1)), refs[4]);
  EXPECT_EQ(index.least_recent_variant(key(1)), refs[0]);
  EXPECT_EQ(index.variant_count(key(1)), 5U);
  EXPECT_FALSE(index.erase(refs[0]));  // the last
  EXPECT_EQ(index.least_recent_variant(key(1)), refs[1]);
  EXPECT_EQ(index.variant_count(key(1)), 4U);
  EXPECT_FALSE(index.erase(refs[3]));  // a middle one
  expect_chain(index, key(1), (std::vector<EntryRef>{refs[4], refs[2], refs[1]}));
  EXPECT_EQ(index.variant_count(key(1)), 3U);
  EXPECT_EQ(index.find(key(1), 3), kNoEntry);
  EXPECT_EQ(index.find(key(1), 2), refs[2]);
  EXPECT_EQ(index.use(key(1), 1), refs[1]);  // the last to the front
  expect_chain(index, key(1), (std::vector<EntryRef>{refs[1], refs[4], refs[2]}));
  EXPECT_EQ(index.least_recent_variant(key(1)), refs[2]);
  EXPECT_EQ(index.use(key(1), 4), refs[4]);  // a middle one to the front
  expect_chain(index, key(1), (std::vector<EntryRef>{refs[4], refs[1], refs[2]}));
  EXPECT_EQ(index.variant_count(key(1)), 3U);
  EXPECT_FALSE(index.erase(refs[4]));
  EXPECT_FALSE(index.erase(refs[2]));
  expect_chain(index, key(1), (std::vector<EntryRef>{refs[1]}));
  EXPECT_EQ(index.least_recent_variant(key(1)), refs[1]);
  EXPECT_EQ(index.variant_count(key(1)), 1U);
  EXPECT_TRUE(index.erase(refs[1]));
  EXPECT_EQ(index.least_recent_variant(key(1)), kNoEntry);
  EXPECT_EQ(index.variant_count(key(1)), 0U);
  EXPECT_EQ(index.find(key(1), 1), kNoEntry);
  // Freed entries are handed out again, with no stale links.
  const auto again = index.add(key(2), 7);
  EXPECT_TRUE(again.new_key);
  expect_chain(index, key(2), (std::vector<EntryRef>{again.ref}));
  EXPECT_EQ(index.variant_count(key(2)), 1U);
}

// Both tables grow while a few keys gather thousands of variants and many
// keys a few: every variant stays found, in its place in its key's chain.
TEST(IndexShard, TablesGrowWithVariants) {
  IndexShard index;
  std::map<std::uint64_t, std::vector<EntryRef>> chains;  // most recent first
  for (std::uint64_t i = 0; i < 6000; ++i) {
    const std::uint64_t k = i % 4 == 0 ? i % 3 : 100 + i / 4;  // keys 0-2 get 500 each
    const std::uint64_t v = i;
    auto& chain = chains[k];
    chain.insert(chain.begin(), index.add(key(k), v).ref);
    if ((i & (i - 1)) == 0 || i == 5999) {  // at every power of two, around each growth
      for (const auto& [kk, refs] : chains) {
        ASSERT_EQ(chain_of(index, key(kk)), refs);
        ASSERT_EQ(chain_backwards(index, key(kk)), refs);
        ASSERT_EQ(index.variant_count(key(kk)), refs.size());
        ASSERT_EQ(index.least_recent_variant(key(kk)), refs.back());
        for (EntryRef r : refs) ASSERT_EQ(index.find(key(kk), index.at(r).variant_hash), r);
      }
    }
  }
  EXPECT_EQ(index.entries(), 6000U);
  EXPECT_EQ(index.keys(), chains.size());
}

// A reference model of the shard's variants: each key's variants most
// recently used first, with their groups.
struct ModelVariant {
  std::uint64_t hash;
  EntryRef ref;
  std::string group;
};
using Model = std::map<std::uint64_t, std::vector<ModelVariant>>;

// As the store makes them: Hasher(variant).h1 | 1.
std::uint64_t variant_hash(std::uint64_t v) {
  return filters::Hasher{}("v" + std::to_string(v)).h1 | 1;
}

// Variants of one key in several groups now and then (an origin that changed
// its Vary), so keys gain and lose a record of their groups.
std::string group_of(std::uint64_t k, std::uint64_t v) {
  if (k % 5 == 0 && v % 7 == 0) return "origin";
  return k % 11 == 0 ? "" : "user-agent";
}

void check_key(const IndexShard& index, const Model& model, std::uint64_t k) {
  const auto it = model.find(k);
  std::vector<EntryRef> expected;
  std::set<std::string> groups;
  if (it != model.end()) {
    for (const ModelVariant& v : it->second) {
      expected.push_back(v.ref);
      groups.insert(v.group);
      ASSERT_EQ(index.find(key(k), v.hash), v.ref);
    }
  }
  ASSERT_EQ(chain_of(index, key(k)), expected);
  ASSERT_EQ(chain_backwards(index, key(k)), expected);
  ASSERT_EQ(index.variant_count(key(k)), expected.size());
  ASSERT_EQ(index.least_recent_variant(key(k)), expected.empty() ? kNoEntry : expected.back());
  ASSERT_EQ(groups_of(index, key(k)), std::vector<std::string>(groups.begin(), groups.end()));
}

void check_all(const IndexShard& index, const Model& model, std::uint64_t keys) {
  std::size_t entries = 0;
  for (std::uint64_t k = 0; k < keys; ++k) {
    check_key(index, model, k);
    if (const auto it = model.find(k); it != model.end()) entries += it->second.size();
  }
  ASSERT_EQ(index.entries(), entries);
  ASSERT_EQ(index.keys(), model.size());
  std::size_t seen = 0;
  index.for_each_key([&](const filters::Hash128&) { ++seen; });
  ASSERT_EQ(seen, model.size());
}

// 300 keys with up to 50 variants each: random finds (present and absent),
// uses, erases of any position in a chain and re-adds, the touched key checked
// against the model after every step and every key now and then.
TEST(IndexShard, VariantsAgreeWithAModelUnderRandomUse) {
  constexpr std::uint64_t kKeys = 300;
  constexpr std::uint64_t kVariants = 50;
  IndexShard index;
  Model model;
  std::mt19937_64 rng(2027);
  const auto add = [&](std::uint64_t k, std::uint64_t v) {
    const std::uint64_t h = variant_hash(v);
    ASSERT_EQ(index.find(key(k), h), kNoEntry);
    const auto added = index.add(key(k), h, group_of(k, v));
    const auto it = model.find(k);
    ASSERT_EQ(added.new_key, it == model.end() || it->second.empty());
    auto& chain = model[k];
    chain.insert(chain.begin(), ModelVariant{h, added.ref, group_of(k, v)});
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> all;
  for (std::uint64_t k = 0; k < kKeys; ++k) {
    for (std::uint64_t v = 0; v < kVariants; ++v) all.emplace_back(k, v);
  }
  std::shuffle(all.begin(), all.end(), rng);
  for (std::size_t i = 0; i < all.size(); ++i) {
    ASSERT_NO_FATAL_FAILURE(add(all[i].first, all[i].second));
    ASSERT_NO_FATAL_FAILURE(check_key(index, model, all[i].first));
  }
  ASSERT_NO_FATAL_FAILURE(check_all(index, model, kKeys));

  for (int op = 0; op < 100'000; ++op) {
    const std::uint64_t k = rng() % kKeys;
    const std::uint64_t v = rng() % (kVariants + 10);  // some never added
    const std::uint64_t h = variant_hash(v);
    auto& chain = model[k];
    const auto pos = std::find_if(chain.begin(), chain.end(),
                                  [&](const ModelVariant& m) { return m.hash == h; });
    const EntryRef want = pos == chain.end() ? kNoEntry : pos->ref;
    switch (rng() % 5) {
      case 0:
        ASSERT_EQ(index.find(key(k), h), want);
        break;
      case 1:
        ASSERT_EQ(index.use(key(k), h), want);
        if (pos != chain.end()) std::rotate(chain.begin(), pos, pos + 1);
        break;
      case 2:
      case 3: {
        if (chain.empty()) break;
        // The first, the last or any one between, evenly.
        const std::size_t n = chain.size();
        const std::size_t which = rng() % 3;
        const std::size_t at = which == 0 ? 0 : which == 1 ? n - 1 : rng() % n;
        ASSERT_EQ(index.erase(chain[at].ref), n == 1);
        chain.erase(chain.begin() + static_cast<std::ptrdiff_t>(at));
        break;
      }
      default:
        if (pos == chain.end()) {
          ASSERT_NO_FATAL_FAILURE(add(k, v));
        }
        break;
    }
    if (chain.empty()) model.erase(k);
    ASSERT_NO_FATAL_FAILURE(check_key(index, model, k));
    if (op % 10'000 == 9'999) {
      ASSERT_NO_FATAL_FAILURE(check_all(index, model, kKeys));
    }
  }
}

// Lookups inspect a few table slots each, however many variants the keys
// have (300 x 50 here): none walks a chain. Variant hashes of 1 to 50, far
// from random, also spread over the table.
TEST(IndexShard, LookupsProbeAFewSlotsWhateverTheVariantCount) {
  for (const bool small_hashes : {false, true}) {
    SCOPED_TRACE(small_hashes ? "variant hashes 1 to 50" : "hashed variants");
    IndexShard index;
    const auto hash_of = [&](std::uint64_t v) { return small_hashes ? v + 1 : variant_hash(v); };
    for (std::uint64_t v = 0; v < 50; ++v) {
      for (std::uint64_t k = 0; k < 300; ++k) index.add(key(k), hash_of(v));
    }
    const auto steps_per = [&](std::size_t lookups, auto&& run) {
      const std::size_t before = index.probe_steps();
      run();
      return static_cast<double>(index.probe_steps() - before) / static_cast<double>(lookups);
    };
    const double find_hit = steps_per(300 * 50, [&] {
      for (std::uint64_t k = 0; k < 300; ++k) {
        for (std::uint64_t v = 0; v < 50; ++v) {
          ASSERT_NE(index.find(key(k), hash_of(v)), kNoEntry);
        }
      }
    });
    const double find_miss = steps_per(300 * 50, [&] {
      for (std::uint64_t k = 0; k < 300; ++k) {
        for (std::uint64_t v = 50; v < 100; ++v) {
          ASSERT_EQ(index.find(key(k), hash_of(v)), kNoEntry);
        }
      }
    });
    // The least recently used to the front, key by key: the farthest from
    // the front for a walk.
    const double use_last = steps_per(300 * 50, [&] {
      for (std::uint64_t v = 0; v < 50; ++v) {
        for (std::uint64_t k = 0; k < 300; ++k) {
          ASSERT_NE(index.use(key(k), hash_of(v)), kNoEntry);
        }
      }
    });
    const double per_key = steps_per(300 * 2, [&] {
      for (std::uint64_t k = 0; k < 300; ++k) {
        ASSERT_EQ(index.variant_count(key(k)), 50U);
        ASSERT_NE(index.least_recent_variant(key(k)), kNoEntry);
      }
    });
    // Linear probing at load <= 3/4 expects 2.5 slots per hit and 8.5 per
    // miss; a walk would take 25 steps per hit on average, 50 per miss.
    EXPECT_LT(find_hit, 3.0);
    EXPECT_LT(find_miss, 9.0);
    EXPECT_LT(use_last, 6.0);  // the key's slot, then find
    EXPECT_LT(per_key, 3.0);
  }
}

TEST(IndexShard, EntriesStayCompact) {
  // The per-object budget (docs/store.md) rests on this size.
  EXPECT_LE(sizeof(IndexEntry), 88U);
}

}  // namespace
}  // namespace sumcache::daemon
