// PartialTable (daemon/cache/partial_table.h): stored partial responses,
// combined per RFC 9111 §3.4 and bounded in bytes and runs.

#include "daemon/cache/partial_table.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

PartialEntry entry(const std::string& key, const std::string& etag,
                   std::string cache_control = "max-age=60") {
  PartialEntry e;
  e.key = key;
  e.facts.status = 206;
  e.facts.fields = {{"Cache-Control", std::move(cache_control)}, {"Content-Range", "x"}};
  if (!etag.empty()) e.facts.fields.push_back({"ETag", etag});
  return e;
}

// RFC 9111 §3.4: two 206s with one strong validator combine; the newer
// fields replace the stored ones; covering the whole, the entry leaves the
// table for the store (RFC 9110 §15.3.7.3).
TEST(PartialTable, CombinesRangesWithOneStrongValidator_Rfc9111_3_4) {
  PartialTable table;
  auto a = table.add(entry("k", "\"v\"", "max-age=60"), {0, 3, 10}, "0123");
  EXPECT_FALSE(a.combined);
  EXPECT_FALSE(a.complete);
  EXPECT_EQ(table.bytes(), 4U);
  auto b = table.add(entry("k", "\"v\"", "max-age=90"), {6, 9, 10}, "6789");
  EXPECT_TRUE(b.combined);
  EXPECT_EQ(b.entry->pieces.size(), 2U);
  EXPECT_EQ(first_value(b.entry->facts.fields, "Cache-Control"), "max-age=90");
  EXPECT_FALSE(has_field(b.entry->facts.fields, "Content-Range"));
  auto c = table.add(entry("k", "\"v\""), {4, 5, 10}, "45");
  EXPECT_TRUE(c.complete);
  ASSERT_EQ(c.entry->pieces.size(), 1U);
  EXPECT_EQ(c.entry->pieces.front().bytes, "0123456789");
  EXPECT_EQ(table.find("k"), nullptr);  // handed to the store
  EXPECT_EQ(table.bytes(), 0U);
}

// RFC 9111 §3.4: another validator, none, a weak one, or another complete
// length: not combined; the newest 206 replaces the entry.
TEST(PartialTable, TheNewestReplacesWhatItCannotJoin_Rfc9111_3_4) {
  PartialTable table;
  table.add(entry("k", "\"v1\""), {0, 3, 10}, "0123");
  auto other = table.add(entry("k", "\"v2\""), {4, 5, 10}, "45");
  EXPECT_FALSE(other.combined);
  EXPECT_EQ(table.find("k")->pieces.size(), 1U);
  EXPECT_EQ(table.bytes(), 2U);
  EXPECT_FALSE(table.add(entry("k", ""), {0, 1, 10}, "01").combined);
  EXPECT_FALSE(table.add(entry("k", ""), {2, 3, 10}, "23").combined);
  table.add(entry("w", "W/\"w\""), {0, 1, 10}, "01");
  EXPECT_FALSE(table.add(entry("w", "W/\"w\""), {2, 3, 10}, "23").combined);
  table.add(entry("n", "\"n\""), {0, 1, 10}, "01");
  EXPECT_FALSE(table.add(entry("n", "\"n\""), {2, 3, 11}, "23").combined);
}

// A body that is not the range's length is refused (RFC 9110 §14.4).
TEST(PartialTable, RefusesABodyOfTheWrongLength_Rfc9110_14_4) {
  PartialTable table;
  EXPECT_EQ(table.add(entry("k", "\"v\""), {0, 3, 10}, "012").entry, nullptr);
  EXPECT_EQ(table.find("k"), nullptr);
}

// Bounded: bytes in all (least recently used evicted first), runs per entry.
TEST(PartialTable, BoundsBytesAndRuns) {
  PartialTable table({.max_bytes = 10, .max_pieces = 2});
  table.add(entry("a", "\"a\""), {0, 3, 100}, "aaaa");
  table.add(entry("b", "\"b\""), {0, 3, 100}, "bbbb");
  ASSERT_NE(table.find("a"), nullptr);  // a is now the most recent
  table.add(entry("c", "\"c\""), {0, 3, 100}, "cccc");
  EXPECT_NE(table.find("a"), nullptr);
  EXPECT_EQ(table.find("b"), nullptr);
  EXPECT_NE(table.find("c"), nullptr);
  EXPECT_EQ(table.bytes(), 8U);
  EXPECT_EQ(table.add(entry("d", "\"d\""), {0, 10, 100}, "01234567890").entry, nullptr);
  // Two runs at most: a third starts the entry over with the newest piece.
  table.add(entry("a", "\"a\""), {10, 10, 100}, "x");
  EXPECT_EQ(table.find("a")->pieces.size(), 2U);
  table.add(entry("a", "\"a\""), {20, 20, 100}, "y");
  EXPECT_EQ(table.find("a")->pieces.size(), 1U);
  table.remove_prefix("");
  EXPECT_EQ(table.entries(), 0U);
  EXPECT_EQ(table.bytes(), 0U);
}

}  // namespace
}  // namespace sumcache::daemon
