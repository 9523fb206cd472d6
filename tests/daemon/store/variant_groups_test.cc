#include "daemon/store/variant_groups.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

filters::Hash128 key(std::uint64_t i) { return filters::Hasher{}(std::to_string(i)); }

TEST(VariantGroups, FieldsAreInternedOncePerShardAndFreedWithTheirLastEntry) {
  VariantGroups groups;
  EXPECT_EQ(groups.acquire(""), VariantGroups::kNoFields);
  const auto ua = groups.acquire("user-agent");
  EXPECT_EQ(groups.acquire("user-agent"), ua);
  const auto lang = groups.acquire("accept-language");
  EXPECT_NE(lang, ua);
  EXPECT_EQ(groups.fields(ua), "user-agent");
  EXPECT_EQ(groups.interned(), 2U);
  groups.release(ua);
  EXPECT_EQ(groups.interned(), 2U);
  groups.release(ua);
  EXPECT_EQ(groups.interned(), 1U);
  // The freed id is reused for the next new fields.
  EXPECT_EQ(groups.acquire("origin"), ua);
  EXPECT_EQ(groups.fields(ua), "origin");
}

TEST(VariantGroups, OnlyAKeyWithSeveralGroupsHasARecord) {
  VariantGroups groups;
  const auto ua = groups.acquire("user-agent");
  const auto origin = groups.acquire("origin");
  groups.joined(key(1), ua, VariantGroups::kNoFields, 0);  // the key's first variant
  groups.joined(key(1), ua, ua, 1);
  EXPECT_EQ(groups.mixed(key(1)), nullptr);
  // A third variant in another group: the two before it are counted as ua's.
  groups.joined(key(1), origin, ua, 2);
  ASSERT_NE(groups.mixed(key(1)), nullptr);
  using Counts = std::vector<std::pair<VariantGroups::GroupId, std::uint32_t>>;
  EXPECT_EQ(*groups.mixed(key(1)), (Counts{{ua, 2}, {origin, 1}}));
  groups.joined(key(1), VariantGroups::kNoFields, ua, 3);
  EXPECT_EQ(*groups.mixed(key(1)), (Counts{{ua, 2}, {origin, 1}, {VariantGroups::kNoFields, 1}}));
  groups.left(key(1), origin);
  groups.left(key(1), ua);
  EXPECT_EQ(*groups.mixed(key(1)), (Counts{{ua, 1}, {VariantGroups::kNoFields, 1}}));
  groups.left(key(1), VariantGroups::kNoFields);  // one group left: no record
  EXPECT_EQ(groups.mixed(key(1)), nullptr);
  EXPECT_EQ(groups.mixed_keys(), 0U);
}

}  // namespace
}  // namespace sumcache::daemon
