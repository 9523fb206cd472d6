#include "daemon/store/object_tags.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

const TagRules kRules{"Surrogate-Key", 4, 8};

TEST(ObjectTags, EveryLineOfTheFieldAnyCaseSortedAndEachOnce) {
  const auto t = object_tags(
      "HTTP/1.1 200 OK\r\nsurrogate-key: b a\r\nETag: \"x\"\r\nSURROGATE-KEY:  c,a\tb \r\n",
      kRules);
  EXPECT_EQ(t.tags, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(t.too_long, 0U);
  EXPECT_FALSE(t.too_many);
}

TEST(ObjectTags, OtherFieldsAndNamesThatOnlyStartAlikeAreNotTags) {
  const auto t = object_tags(
      "HTTP/1.1 200 OK\r\nSurrogate-Keys: x\r\nX-Surrogate-Key: y\r\nSurrogate-Key\r\n", kRules);
  EXPECT_TRUE(t.tags.empty());
  EXPECT_TRUE(object_tags("HTTP/1.1 200 OK\r\nSurrogate-Key: a\r\n", {"", 4, 8}).tags.empty());
}

TEST(ObjectTags, TooLongTagsAreCountedAndLeftOutTooManyRefuseTheObject) {
  const auto long_one = object_tags("HTTP/1.1 200 OK\r\nSurrogate-Key: ok 123456789\r\n", kRules);
  EXPECT_EQ(long_one.tags, (std::vector<std::string>{"ok"}));
  EXPECT_EQ(long_one.too_long, 1U);
  // Repeats do not count against the bound; a fifth distinct tag does.
  EXPECT_FALSE(object_tags("HTTP/1.1 200 OK\r\nSurrogate-Key: a b a c d d\r\n", kRules).too_many);
  EXPECT_TRUE(object_tags("HTTP/1.1 200 OK\r\nSurrogate-Key: a b c d e\r\n", kRules).too_many);
}

}  // namespace
}  // namespace sumcache::daemon
