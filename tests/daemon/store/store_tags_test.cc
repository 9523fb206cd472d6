// The store's tag index and key names: tag and prefix purges find exactly
// their objects, every variant, in every shard; the index follows replace,
// eviction and removal; a restart re-derives it from the disk tier; bounds
// are counted and logged.

#include <gtest/gtest.h>

#include "daemon/store/store.h"
#include "daemon/store/store_error.h"
#include "tests/daemon/store/store_test_support.h"

namespace sumcache::daemon {
namespace {

using testing::disk_options;
using testing::expect_filter_matches_index;
using testing::LogLines;
using testing::make_object;
using testing::memory_options;
using testing::open_store;
using testing::TempDir;

std::string head_with(std::string_view tags) {
  return "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nSurrogate-Key: " + std::string(tags) + "\r\n";
}

StoreOptions tagged(StoreOptions o, LogLines* log = nullptr) {
  o.tags = {"Surrogate-Key", 4, 16};
  if (log != nullptr) o.log = log->sink();
  return o;
}

void put(Store& store, const std::string& key, std::string_view tags, std::string variant = {}) {
  ASSERT_FALSE(
      store.insert(make_object(store, key, "body", std::move(variant), "meta", head_with(tags))));
}

TEST(StoreTags, ATagPurgeRemovesEveryTaggedVariantInEveryShardAndNothingElse) {
  auto store = open_store(tagged(memory_options(1 << 20, 8)));
  ASSERT_TRUE(store);
  for (int i = 0; i < 40; ++i) {
    put(*store, "http://t.example/" + std::to_string(i), i % 2 == 0 ? "even all" : "odd all");
  }
  put(*store, "http://t.example/0", "even all", "gzip");  // a second variant of a tagged key
  EXPECT_EQ(store->stats().tag_pairs, 82U);
  EXPECT_EQ(store->remove_tag("even"), 21U);
  EXPECT_EQ(store->remove_tag("even"), 0U);
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(store->find("http://t.example/" + std::to_string(i)).empty(), i % 2 == 0) << i;
  }
  EXPECT_EQ(store->stats().tag_pairs, 40U);  // the odd ones' two tags each
  expect_filter_matches_index(*store);       // purged keys left the filter
  EXPECT_EQ(store->remove_tag("all"), 20U);
  EXPECT_EQ(store->stats().keys, 0U);
  EXPECT_EQ(store->stats().tag_pairs, 0U);
}

TEST(StoreTags, AReplacedObjectIsIndexedUnderItsNewTagsOnly) {
  auto store = open_store(tagged(memory_options()));
  ASSERT_TRUE(store);
  put(*store, "http://t.example/x", "old");
  put(*store, "http://t.example/x", "new");
  EXPECT_EQ(store->remove_tag("old"), 0U);
  EXPECT_EQ(store->find("http://t.example/x").size(), 1U);
  EXPECT_EQ(store->remove_tag("new"), 1U);
}

TEST(StoreTags, EvictedAndRemovedObjectsLeaveTheIndex) {
  // Room for about two objects: inserting ten evicts eight.
  auto store = open_store(tagged(memory_options(200)));
  ASSERT_TRUE(store);
  for (int i = 0; i < 10; ++i) put(*store, "http://t.example/" + std::to_string(i), "t");
  const StoreStats st = store->stats();
  EXPECT_EQ(st.tag_pairs, st.objects);
  EXPECT_LT(st.objects, 10U);
  store->remove("http://t.example/9");
  EXPECT_EQ(store->stats().tag_pairs, store->stats().objects);
}

TEST(StoreTags, ARefreshedHeadBringsItsOwnTags) {
  auto store = open_store(tagged(memory_options()));
  ASSERT_TRUE(store);
  put(*store, "http://t.example/r", "before");
  ASSERT_FALSE(store->update_meta("http://t.example/r", "", "meta2", head_with("after")));
  EXPECT_EQ(store->remove_tag("before"), 0U);
  EXPECT_EQ(store->remove_tag("after"), 1U);
}

TEST(StoreTags, OverTheBoundsObjectsAreRefusedCountedAndLogged) {
  LogLines log;
  StoreOptions o = tagged(memory_options(), &log);
  o.max_tag_pairs = 4;
  auto store = open_store(std::move(o));
  ASSERT_TRUE(store);
  // More tags than max_tags (4): a tag purge could not be trusted to find it.
  EXPECT_EQ(store->insert(make_object(*store, "http://t.example/many", "body", {}, "meta",
                                      head_with("a b c d e"))),
            StoreErrc::too_many_tags);
  EXPECT_TRUE(store->find("http://t.example/many").empty());
  // A tag longer than max_tag_bytes (16) can never be purged: left out, counted.
  put(*store, "http://t.example/long", "short this-tag-is-far-too-long");
  EXPECT_EQ(store->stats().tags_too_long, 1U);
  put(*store, "http://t.example/1", "p q r");  // 1 + 3 pairs
  // The index is full: the object is refused, and one it replaces goes too.
  EXPECT_EQ(store->insert(make_object(*store, "http://t.example/1", "body", {}, "meta",
                                      head_with("p q s t"))),
            StoreErrc::tag_index_full);
  EXPECT_TRUE(store->find("http://t.example/1").empty());
  const StoreStats st = store->stats();
  EXPECT_EQ(st.objects_refused_tags, 2U);
  EXPECT_EQ(st.tag_pairs, 1U);
  EXPECT_TRUE(log.any_contains("tags: not stored"));
  expect_filter_matches_index(*store);
}

TEST(StoreTags, APrefixPurgeRemovesEveryKeyUnderItInEveryShard) {
  auto store = open_store(memory_options(1 << 20, 8));
  ASSERT_TRUE(store);
  for (int i = 0; i < 30; ++i) {
    ASSERT_FALSE(
        store->insert(make_object(*store, "http://p.example/a/" + std::to_string(i), "x")));
    ASSERT_FALSE(
        store->insert(make_object(*store, "http://p.example/b/" + std::to_string(i), "x")));
  }
  ASSERT_FALSE(store->insert(make_object(*store, "http://p.example/a/0", "x", "v2")));
  ASSERT_FALSE(store->insert(make_object(*store, "http://p.example/a", "x")));  // not under "/a/"
  EXPECT_EQ(store->remove_prefix("http://p.example/a/"), 31U);
  EXPECT_EQ(store->remove_prefix("http://p.example/a/"), 0U);
  EXPECT_EQ(store->find("http://p.example/a").size(), 1U);
  EXPECT_EQ(store->find("http://p.example/b/7").size(), 1U);
  EXPECT_EQ(store->stats().keys, 31U);
  expect_filter_matches_index(*store);
}

TEST(StoreTags, APrefixPurgeOfManyKeysTakesThemInChunks) {
  auto store = open_store(memory_options(1 << 24, 1));
  ASSERT_TRUE(store);
  const std::size_t n = Store::kPurgeChunk * 2 + 7;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_FALSE(store->insert(make_object(*store, "http://c.example/" + std::to_string(i), "x")));
  }
  EXPECT_EQ(store->remove_prefix("http://c.example/"), n);
  EXPECT_EQ(store->stats().keys, 0U);
}

TEST(StoreTags, ARestartRederivesTagsAndKeyNamesFromTheDiskTier) {
  TempDir dir;
  {
    auto store = open_store(tagged(disk_options(dir.path().string())));
    ASSERT_TRUE(store);
    put(*store, "http://d.example/a/1", "red");
    put(*store, "http://d.example/a/2", "blue");
    put(*store, "http://d.example/b/3", "red");
    store->flush();
  }
  auto store = open_store(tagged(disk_options(dir.path().string())));
  ASSERT_TRUE(store);
  EXPECT_EQ(store->stats().disk_objects, 3U);
  EXPECT_EQ(store->stats().tag_pairs, 3U);
  EXPECT_EQ(store->remove_tag("red"), 2U);
  EXPECT_EQ(store->remove_prefix("http://d.example/a/"), 1U);
  EXPECT_EQ(store->stats().keys, 0U);
  expect_filter_matches_index(*store);
}

}  // namespace
}  // namespace sumcache::daemon
