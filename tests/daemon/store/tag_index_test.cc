#include "daemon/store/tag_index.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "daemon/store/key_names.h"

namespace sumcache::daemon {
namespace {

std::vector<EntryRef> sorted(std::vector<EntryRef> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(TagIndex, EntriesByTagFollowAddAndRemove) {
  TagIndex index;
  EXPECT_EQ(index.add(1, {"a", "b"}), 2U);
  EXPECT_EQ(index.add(2, {"b"}), 1U);
  EXPECT_EQ(index.add(3, {}), 0U);
  EXPECT_EQ(sorted(index.entries("b", 10)), (std::vector<EntryRef>{1, 2}));
  EXPECT_EQ(index.entries("b", 1).size(), 1U);  // at most the limit
  EXPECT_TRUE(index.entries("c", 10).empty());
  EXPECT_EQ(index.pairs(), 3U);
  EXPECT_EQ(index.remove(1), 2U);
  EXPECT_EQ(index.remove(1), 0U);
  EXPECT_EQ(index.remove(3), 0U);
  EXPECT_TRUE(index.entries("a", 10).empty());
  EXPECT_EQ(index.entries("b", 10), (std::vector<EntryRef>{2}));
  EXPECT_EQ(index.tags(), 1U);  // "a" went with its last entry
  EXPECT_EQ(index.pairs(), 1U);
}

TEST(KeyNames, APrefixIsARangeOfTheKeysInByteOrder) {
  KeyNames names;
  const filters::Hasher hasher;
  for (const char* key :
       {"http://h/a/1", "http://h/a/2", "http://h/a", "http://h/ab", "http://h/b/1"}) {
    names.add(hasher(key), key);
  }
  names.add(hasher("http://h/a/1"), "http://h/a/1");  // a second variant's key: still one
  EXPECT_EQ(names.size(), 5U);
  EXPECT_EQ(names.with_prefix("http://h/a/", 10).size(), 2U);
  EXPECT_EQ(names.with_prefix("http://h/a", 10).size(), 4U);
  EXPECT_EQ(names.with_prefix("http://h/a", 3).size(), 3U);
  EXPECT_TRUE(names.with_prefix("http://x/", 10).empty());
  names.remove(hasher("http://h/a/1"));
  names.remove(hasher("http://h/never"));
  EXPECT_EQ(names.with_prefix("http://h/a/", 10),
            (std::vector<filters::Hash128>{hasher("http://h/a/2")}));
}

}  // namespace
}  // namespace sumcache::daemon
