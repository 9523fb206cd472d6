// Variants of one key (docs/store.md, "Variants"): found by the hash of the
// variant a lookup builds per group, capped per key with the least recently
// used evicted (counted, logged), on the memory tier and through a restart.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "daemon/store/store.h"
#include "tests/daemon/store/store_test_support.h"

namespace sumcache::daemon {
namespace {

using testing::disk_options;
using testing::expect_filter_matches_index;
using testing::LogLines;
using testing::make_object;
using testing::memory_options;
using testing::open_store;
using testing::path_for;
using testing::TempDir;

// The test's variants are "group=value" (the cache's are Vary keys,
// http/vary.h): the group is what precedes '='.
StoreOptions grouped(StoreOptions o, std::uint32_t max_variants = 200) {
  o.max_variants_per_key = max_variants;
  o.variant_group = [](std::string_view variant) {
    return std::string(variant.substr(0, std::min(variant.find('='), variant.size())));
  };
  return o;
}

using Values = std::map<std::string, std::string, std::less<>>;

// A request: its variant under each group, as the cache's RequestVariants.
class Request final : public VariantSelector {
 public:
  explicit Request(Values values) : values_(std::move(values)) {}
  bool select(std::string_view group, std::string& variant) override {
    ++asked;
    if (group.empty()) {
      variant.clear();
      return true;
    }
    const auto it = values_.find(group);
    if (it == values_.end()) return false;
    variant = std::string(group) + "=" + it->second;
    return true;
  }
  int asked = 0;

 private:
  Values values_;
};

std::vector<std::string> lookup(Store& store, std::string_view key, Request request) {
  std::vector<ObjectPtr> found;
  store.find(key, store.hash_key(key), request, found, nullptr);
  std::vector<std::string> variants;
  for (const auto& o : found) variants.push_back(o->variant);
  std::sort(variants.begin(), variants.end());
  return variants;
}

std::string ua(int i) { return "ua=agent-" + std::to_string(i); }

TEST(StoreVariants, ALookupBuildsOneVariantPerGroupAndFindsItByHash) {
  auto store = open_store(grouped(memory_options()));
  for (int i = 0; i < 50; ++i) {
    ASSERT_FALSE(
        store->insert(make_object(*store, "http://a/", "body" + std::to_string(i), ua(i))));
  }
  Request request(Values{{"ua", "agent-17"}});
  std::vector<ObjectPtr> found;
  store->find("http://a/", store->hash_key("http://a/"), request, found, nullptr);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(*found[0]->body, "body17");
  EXPECT_EQ(request.asked, 1);  // one group, one variant built: not one per stored variant
  EXPECT_TRUE(lookup(*store, "http://a/", Request(Values{{"ua", "agent-50"}})).empty());
  EXPECT_TRUE(lookup(*store, "http://a/", Request(Values{})).empty());
  EXPECT_TRUE(lookup(*store, "http://b/", Request(Values{{"ua", "agent-1"}})).empty());
  EXPECT_EQ(store->stats().misses, 3U);
}

// An origin that changed its Vary, or sends Vary: Origin on some responses
// only: each group of the key is asked, and each finds its own variant.
TEST(StoreVariants, VariantsUnderDifferentFieldListsAreEachFound) {
  auto store = open_store(grouped(memory_options()));
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "plain")));
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "by-ua", "ua=x")));
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "by-origin", "origin=o")));
  EXPECT_EQ(lookup(*store, "http://a/", Request(Values{{"ua", "x"}, {"origin", "o"}})),
            (std::vector<std::string>{"", "origin=o", "ua=x"}));
  EXPECT_EQ(lookup(*store, "http://a/", Request(Values{{"ua", "y"}, {"origin", "o"}})),
            (std::vector<std::string>{"", "origin=o"}));
  ASSERT_TRUE(store->remove_variant("http://a/", ""));
  ASSERT_TRUE(store->remove_variant("http://a/", "origin=o"));
  EXPECT_EQ(lookup(*store, "http://a/", Request(Values{{"ua", "x"}, {"origin", "o"}})),
            (std::vector<std::string>{"ua=x"}));
  expect_filter_matches_index(*store);
}

TEST(StoreVariants, PastTheCapTheLeastRecentlyUsedVariantGoesCountedAndLogged) {
  LogLines log;
  auto options = grouped(memory_options(), 3);
  options.log = log.sink();
  auto store = open_store(options);
  for (int i = 0; i < 3; ++i) {
    ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "b", ua(i))));
  }
  ASSERT_FALSE(store->insert(make_object(*store, "http://other/", "b", ua(0))));
  // agent-0 is used: agent-1 is now the least recently used.
  EXPECT_EQ(lookup(*store, "http://a/", Request(Values{{"ua", "agent-0"}})),
            (std::vector<std::string>{ua(0)}));
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "b", ua(3))));
  EXPECT_TRUE(lookup(*store, "http://a/", Request(Values{{"ua", "agent-1"}})).empty());
  for (int i : {0, 2, 3}) {
    EXPECT_EQ(lookup(*store, "http://a/", Request(Values{{"ua", "agent-" + std::to_string(i)}})),
              (std::vector<std::string>{ua(i)}));
  }
  EXPECT_EQ(store->stats().variants_evicted, 1U);
  EXPECT_EQ(store->stats().objects, 4U);
  EXPECT_TRUE(log.any_contains("http://a/", "cache.max_variants_per_key"));
  // A flood: the count stays at the cap, the filter counts the key once.
  for (int i = 4; i < 1000; ++i) {
    ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "b", ua(i))));
  }
  EXPECT_EQ(store->stats().variants_evicted, 997U);
  EXPECT_EQ(store->stats().objects, 4U);
  EXPECT_EQ(store->stats().keys, 2U);
  EXPECT_EQ(store->filter_stats().entries, 2U);
  expect_filter_matches_index(*store);
  // One line per interval, however many were evicted.
  EXPECT_LT(log.lines().size(), 5U);
  // A purge takes every variant, and the key leaves the filter.
  EXPECT_EQ(store->remove("http://a/"), 3U);
  EXPECT_EQ(store->stats().keys, 1U);
  expect_filter_matches_index(*store);
}

TEST(StoreVariants, ACapOfOneReplacesTheVariantAndKeepsTheKey) {
  auto store = open_store(grouped(memory_options(), 1));
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "1", ua(1))));
  ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "2", ua(2))));
  EXPECT_EQ(lookup(*store, "http://a/", Request(Values{{"ua", "agent-2"}})),
            (std::vector<std::string>{ua(2)}));
  EXPECT_EQ(store->stats().objects, 1U);
  EXPECT_EQ(store->filter_stats().entries, 1U);
  expect_filter_matches_index(*store);
}

TEST(StoreVariants, ACapOutsideItsBoundsIsRefused) {
  EXPECT_FALSE(Store::open(grouped(memory_options(), 0)).ok());
  EXPECT_FALSE(Store::open(grouped(memory_options(), kMaxVariantsPerKey + 1)).ok());
}

// Variants reloaded from disk obey the cap too: files join oldest first, so
// the newest stay and the others' files are removed.
TEST(StoreVariants, ARestartUnderALowerCapKeepsTheNewestVariants) {
  TempDir dir;
  {
    auto store = open_store(grouped(disk_options(dir.path()), 10));
    for (int i = 0; i < 6; ++i) {
      ASSERT_FALSE(
          store->insert(make_object(*store, "http://a/", "body" + std::to_string(i), ua(i))));
      store->flush();  // one write sequence number after the other
    }
    ASSERT_FALSE(store->insert(make_object(*store, "http://b/", "b")));
    store->flush();
  }
  LogLines log;
  auto options = grouped(disk_options(dir.path()), 2);
  options.log = log.sink();
  auto store = open_store(options);
  EXPECT_EQ(store->stats().objects, 3U);
  EXPECT_EQ(store->stats().variants_evicted, 4U);
  EXPECT_EQ(store->stats().disk_objects, 3U);
  expect_filter_matches_index(*store);
  EXPECT_TRUE(log.any_contains("http://a/", "cache.max_variants_per_key"));
  for (int i = 0; i < 6; ++i) {
    const bool kept = i >= 4;
    EXPECT_EQ(std::filesystem::exists(path_for(*store, dir.path(), "http://a/", ua(i))), kept) << i;
    std::vector<ObjectPtr> found;
    Request request(Values{{"ua", "agent-" + std::to_string(i)}});
    store->find("http://a/", store->hash_key("http://a/"), request, found, nullptr);
    ASSERT_EQ(found.size(), kept ? 1U : 0U) << i;
    if (kept) {
      EXPECT_EQ(found[0]->variant, ua(i));  // checked against the file's header
      EXPECT_EQ(testing::body_of(*store, found[0]), "body" + std::to_string(i));
    }
  }
}

// The disk-only variants a lookup lists are only those its groups select.
TEST(StoreVariants, ADiskOnlyLookupListsOnlyTheSelectedVariant) {
  TempDir dir;
  {
    auto store = open_store(grouped(disk_options(dir.path())));
    for (int i = 0; i < 20; ++i) {
      ASSERT_FALSE(store->insert(make_object(*store, "http://a/", "b", ua(i))));
    }
    store->flush();
  }
  auto store = open_store(grouped(disk_options(dir.path())));
  std::vector<ObjectPtr> found;
  std::vector<DiskCandidate> on_disk;
  Request request(Values{{"ua", "agent-7"}});
  store->find("http://a/", store->hash_key("http://a/"), request, found, &on_disk);
  EXPECT_TRUE(found.empty());
  ASSERT_EQ(on_disk.size(), 1U);
  EXPECT_EQ(on_disk[0].variant_hash, variant_hash(filters::Hasher{}, ua(7)));
}

}  // namespace
}  // namespace sumcache::daemon
