// The store's API on the memory tier: lookups, variants, replacement,
// removal, refresh, refusals, LRU eviction, and the filter following along.

#include "daemon/store/store.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "daemon/store/store_error.h"
#include "tests/daemon/store/store_test_support.h"

namespace sumcache::daemon {
namespace {

using testing::expect_filter_matches_index;
using testing::make_object;
using testing::memory_options;
using testing::open_store;

std::vector<std::string> variants_of(const std::vector<ObjectPtr>& found) {
  std::vector<std::string> v;
  v.reserve(found.size());
  for (const auto& o : found) v.push_back(o->variant);
  std::sort(v.begin(), v.end());
  return v;
}

TEST(Store, FindReturnsTheInsertedObjectWithoutCopyingTheBody) {
  auto store = open_store(memory_options());
  StoredObject o = make_object(*store, "http://a/1", "hello");
  const auto body = o.body;
  ASSERT_FALSE(store->insert(std::move(o)));
  const auto found = store->find("http://a/1");
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0]->body, body);
  EXPECT_EQ(found[0]->head, "HTTP/1.1 200 OK\r\n\r\n");
  EXPECT_EQ(store->stats().memory_hits, 1U);
  EXPECT_TRUE(store->filter_snapshot().contains("http://a/1"));
}

TEST(Store, UnknownKeyIsAMiss) {
  auto store = open_store(memory_options());
  EXPECT_TRUE(store->find("http://nothing/").empty());
  EXPECT_EQ(store->stats().misses, 1U);
}

TEST(Store, VariantsOfAKeyAreStoredSideBySideAndCountedOnceInTheFilter) {
  auto store = open_store(memory_options());
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "plain")));
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "zipped", "gzip")));
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "brotli", "br")));
  EXPECT_EQ(variants_of(store->find("http://a/")), (std::vector<std::string>{"", "br", "gzip"}));
  EXPECT_EQ(store->filter_stats().entries, 1U);
  EXPECT_EQ(store->stats().keys, 1U);
  EXPECT_EQ(store->stats().objects, 3U);
  expect_filter_matches_index(*store);
}

TEST(Store, InsertReplacesTheSameKeyAndVariant) {
  auto store = open_store(memory_options());
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "old", "gzip")));
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "newer", "gzip")));
  const auto found = store->find("http://a/");
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(*found[0]->body, "newer");
  EXPECT_EQ(store->stats().memory_objects, 1U);
  EXPECT_EQ(store->stats().memory_bytes, object_bytes(*found[0]));
  EXPECT_EQ(store->filter_stats().entries, 1U);
  expect_filter_matches_index(*store);
}

TEST(Store, RemoveTakesEveryVariantAndTheKeyLeavesTheFilter) {
  auto store = open_store(memory_options());
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "1")));
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "2", "gzip")));
  ASSERT_FALSE(store->insert(make_object(*store, "http://b/", "3")));
  EXPECT_EQ(store->remove("http://a/"), 2U);
  EXPECT_EQ(store->remove("http://a/"), 0U);
  EXPECT_TRUE(store->find("http://a/").empty());
  EXPECT_EQ(store->find("http://b/").size(), 1U);
  EXPECT_FALSE(store->filter_snapshot().contains("http://a/"));
  EXPECT_EQ(store->stats().memory_bytes, object_bytes(*store->find("http://b/")[0]));
  expect_filter_matches_index(*store);
}

TEST(Store, RemoveVariantKeepsTheKeyUntilItsLastVariant) {
  auto store = open_store(memory_options());
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "1")));
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "2", "gzip")));
  EXPECT_TRUE(store->remove_variant("http://a/", "gzip"));
  EXPECT_FALSE(store->remove_variant("http://a/", "gzip"));
  EXPECT_EQ(store->filter_stats().entries, 1U);
  EXPECT_TRUE(store->remove_variant("http://a/", ""));
  EXPECT_EQ(store->filter_stats().entries, 0U);
  expect_filter_matches_index(*store);
}

TEST(Store, UpdateMetaReplacesHeadAndMetaAndKeepsTheBody) {
  auto store = open_store(memory_options());
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "body", "gzip", "m1", "H1")));
  const auto body = store->find("http://a/")[0]->body;
  ASSERT_FALSE(store->update_meta("http://a/", "gzip", "m2", "H2"));
  const auto found = store->find("http://a/");
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0]->meta, "m2");
  EXPECT_EQ(found[0]->head, "H2");
  EXPECT_EQ(found[0]->body, body);
  EXPECT_EQ(store->stats().memory_bytes, object_bytes(*found[0]));
  EXPECT_EQ(store->update_meta("http://a/", "br", "m", "h"), StoreErrc::not_found);
  EXPECT_EQ(store->update_meta("http://b/", "", "m", "h"), StoreErrc::not_found);
}

TEST(Store, RefusesObjectsAboveTheCapsAndMalformedOnes) {
  StoreOptions options = memory_options(1000);
  options.max_object_bytes = 500;
  auto store = open_store(options);
  EXPECT_EQ(store->insert(make_object(*store, "http://a/", std::string(600, 'x'))),
            StoreErrc::too_large);
  StoredObject no_body = make_object(*store, "http://a/", "x");
  no_body.body = nullptr;
  EXPECT_EQ(store->insert(no_body), StoreErrc::invalid_object);
  StoredObject wrong_size = make_object(*store, "http://a/", "x");
  wrong_size.body_size = 2;
  EXPECT_EQ(store->insert(wrong_size), StoreErrc::invalid_object);
  StoredObject long_head = make_object(*store, "http://a/", "x");
  long_head.head.assign(kMaxHeadBytes + 1, 'h');
  EXPECT_EQ(store->insert(long_head), StoreErrc::field_too_large);
  EXPECT_EQ(store->stats().objects, 0U);
  EXPECT_EQ(store->filter_stats().entries, 0U);
}

TEST(Store, WithoutADiskAnObjectAboveTheMemoryBudgetIsRefused) {
  StoreOptions options = memory_options(100);
  options.max_object_bytes = 1000;
  auto store = open_store(options);
  EXPECT_EQ(store->insert(make_object(*store, "http://a/", std::string(200, 'x'))),
            StoreErrc::too_large);
}

TEST(Store, MemoryEvictionTakesTheLeastRecentlyUsedFirst) {
  // Each object: 10 key + 4 meta + 19 head + 67 body = 100 bytes; room for 3.
  auto store = open_store(memory_options(300));
  const auto put = [&](const char* key) {
    ASSERT_FALSE(store->insert(make_object(*store, key, std::string(67, 'b'))));
  };
  put("http://a/1");
  put("http://a/2");
  put("http://a/3");
  ASSERT_EQ(store->find("http://a/1").size(), 1U);  // 1 is now the most recent
  put("http://a/4");                                // evicts 2
  EXPECT_TRUE(store->find("http://a/2").empty());
  EXPECT_EQ(store->find("http://a/1").size(), 1U);
  put("http://a/5");  // evicts 3
  EXPECT_TRUE(store->find("http://a/3").empty());
  EXPECT_EQ(store->find("http://a/4").size(), 1U);
  EXPECT_EQ(store->find("http://a/5").size(), 1U);
  const StoreStats st = store->stats();
  EXPECT_EQ(st.memory_evictions, 2U);
  EXPECT_EQ(st.memory_bytes, 300U);
  EXPECT_FALSE(store->filter_snapshot().contains("http://a/2"));
  expect_filter_matches_index(*store);
}

TEST(Store, ManyShardsStayWithinTheMemoryBudget) {
  auto store = open_store(memory_options(50'000, 8));
  for (int i = 0; i < 5000; ++i) {
    ASSERT_FALSE(store->insert(
        make_object(*store, "http://k/" + std::to_string(i), std::string(i % 300, 'x'))));
    ASSERT_LE(store->stats().memory_bytes, 50'000U);
  }
  EXPECT_GT(store->stats().memory_evictions, 0U);
  expect_filter_matches_index(*store);
}

TEST(Store, AnotherKeyWithTheSameHashIsAMiss) {
  auto store = open_store(memory_options());
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "x")));
  std::vector<ObjectPtr> out;
  store->find("http://collides/", store->hash_key("http://a/"), out);
  EXPECT_TRUE(out.empty());
}

TEST(Store, FilterDeltaSinceASnapshotTurnsItIntoTheCurrentBitView) {
  auto store = open_store(memory_options());
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "x")));
  // The mark, as a publisher's first round takes it: nothing was marked before
  // it, so it reports that a full bit view must go out (and marks).
  EXPECT_FALSE(store->take_filter_delta().ok());
  filters::BloomFilter peer = store->filter_snapshot();
  EXPECT_TRUE(peer.contains("http://a/"));
  ASSERT_FALSE(store->insert(make_object(*store, "http://b/", "x")));
  ASSERT_EQ(store->remove("http://a/"), 1U);
  const auto changes = store->take_filter_delta();
  ASSERT_TRUE(changes.ok()) << changes.error().message();
  EXPECT_FALSE(changes->empty());
  for (const auto& change : *changes) peer.set_bit(change.position, change.value);
  EXPECT_EQ(peer, store->filter_snapshot());
  const auto none = store->take_filter_delta();  // marked again
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  const FilterStats fs = store->filter_stats();
  EXPECT_EQ(fs.m, 1U << 16);
  EXPECT_EQ(fs.k, 4U);
  EXPECT_EQ(fs.entries, 1U);
  EXPECT_EQ(fs.nonzero, peer.count_set_bits());
  EXPECT_EQ(fs.pending_changes, 0U);
  EXPECT_EQ(fs.refused_removes, 0U);
}

TEST(Store, OpenRefusesInconsistentOptions) {
  StoreOptions options = memory_options();
  options.shards = 0;
  EXPECT_EQ(Store::open(options).error(), StoreErrc::invalid_options);
  options = memory_options();
  options.disk_enabled = true;  // without a path
  EXPECT_EQ(Store::open(options).error(), StoreErrc::invalid_options);
  options = memory_options();
  options.filter_params = {0, 4};
  EXPECT_FALSE(Store::open(options).ok());
}

TEST(Store, FilterDeltaStatesEachChangedBitsValueAndCountsNewKeys) {
  auto store = open_store(memory_options());
  EXPECT_FALSE(store->take_filter_delta().ok());  // the first marks: send in full
  filters::BloomFilter peer = store->filter_snapshot();
  EXPECT_EQ(store->filter_keys_added(), 0U);
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "x")));
  ASSERT_FALSE(store->insert(make_object(*store, "http://b/", "y")));
  ASSERT_EQ(store->remove("http://a/"), 1U);
  EXPECT_EQ(store->filter_keys_added(), 2U);  // the removal is not a new document
  const auto delta = store->take_filter_delta();
  ASSERT_TRUE(delta.ok()) << delta.error().message();
  EXPECT_EQ(store->filter_keys_added(), 0U);
  for (const auto& change : *delta) peer.set_bit(change.position, change.value);
  EXPECT_EQ(peer, store->filter_snapshot());
  EXPECT_TRUE(peer.contains("http://b/"));
  // Replaying the same delta changes nothing: it states values, not flips.
  for (const auto& change : *delta) peer.set_bit(change.position, change.value);
  EXPECT_EQ(peer, store->filter_snapshot());
}

// A receiver's copy of a fingerprint set, advanced by rounds as a peer's
// directory is: removals by rank in the set held, then additions.
std::vector<std::uint64_t> apply_round(std::vector<std::uint64_t> held,
                                       const filters::FingerprintDelta& delta) {
  std::vector<std::uint64_t> kept;
  std::size_t next = 0;
  for (std::uint64_t rank = 0; rank < held.size(); ++rank) {
    if (next < delta.removed_ranks.size() && delta.removed_ranks[next] == rank) {
      ++next;
      continue;
    }
    kept.push_back(held[rank]);
  }
  kept.insert(kept.end(), delta.added.begin(), delta.added.end());
  std::sort(kept.begin(), kept.end());
  return kept;
}

TEST(Store, FingerprintRoundsGiveEachMarkedSetAndTheDeltaBetweenThem) {
  auto store = open_store(testing::with_fingerprints(memory_options()));
  ASSERT_TRUE(store->keeps_fingerprints());
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "x")));
  // The first round has no mark to start from: the set in full, and a mark.
  FingerprintRound first = store->take_fingerprint_round(false);
  EXPECT_FALSE(first.delta.ok());
  ASSERT_TRUE(first.sorted.has_value());
  EXPECT_EQ(first.sorted->size(), 1U);
  EXPECT_EQ(first.entries, 1U);
  // Nothing changed since: the set as marked is known without a round.
  EXPECT_EQ(store->fingerprints_if_unchanged(), first.sorted);
  ASSERT_FALSE(store->insert(make_object(*store, "http://b/", "x")));
  ASSERT_FALSE(store->insert(make_object(*store, "http://c/", "x")));
  EXPECT_EQ(store->filter_keys_added(), 2U);
  ASSERT_EQ(store->remove("http://a/"), 1U);
  // Changed since the mark: only a round can say what the set is at one.
  EXPECT_FALSE(store->fingerprints_if_unchanged().has_value());
  EXPECT_EQ(store->filter_stats().pending_changes, 3U);
  FingerprintRound second = store->take_fingerprint_round(true);
  ASSERT_TRUE(second.delta.ok()) << second.delta.error().message();
  EXPECT_EQ(second.delta->removed_ranks.size(), 1U);
  EXPECT_EQ(second.delta->added.size(), 2U);
  ASSERT_TRUE(second.sorted.has_value());
  EXPECT_EQ(apply_round(*first.sorted, *second.delta), *second.sorted);
  EXPECT_EQ(second.entries, 2U);
  EXPECT_EQ(store->filter_keys_added(), 0U);
  const FilterStats fs = store->filter_stats();
  EXPECT_TRUE(fs.fingerprint);
  EXPECT_EQ(fs.m, std::uint64_t{1} << 24);  // the universe
  EXPECT_EQ(fs.k, 1U);
  EXPECT_EQ(fs.entries, 2U);
  EXPECT_GT(fs.memory_bytes, 0U);
  EXPECT_EQ(fs.refused_removes, 0U);
}

TEST(Store, FingerprintTableRefusesAUniverseOverTheCap) {
  StoreOptions options = testing::with_fingerprints(memory_options(), filters::kMaxUniverse + 1);
  EXPECT_EQ(Store::open(options).error(), StoreErrc::invalid_options);
}

}  // namespace
}  // namespace sumcache::daemon
