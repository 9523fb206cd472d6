#include "daemon/http/field_value.h"

#include <gtest/gtest.h>

#include "daemon/http/header_list.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;

// RFC 9110 §5.6.1: empty members and OWS around commas carry no meaning.
TEST(FieldValue, SplitListTrimsAndDropsEmptyMembers) {
  const std::vector<std::string_view> expected = {"a", "b c", "d"};
  EXPECT_EQ(split_list(" a ,, b c\t,d ,"), expected);
  EXPECT_TRUE(split_list(" , ,").empty());
}

// RFC 9110 §5.6.4, §5.6.5: commas inside quoted strings and comments do not split.
TEST(FieldValue, SplitListKeepsQuotedStringsAndCommentsWhole) {
  const std::vector<std::string_view> quoted = {R"(no-cache="a, b")", "max-age=1"};
  EXPECT_EQ(split_list(R"(no-cache="a, b", max-age=1)"), quoted);
  const std::vector<std::string_view> escaped = {R"(x="a\", b")", "y"};
  EXPECT_EQ(split_list(R"(x="a\", b", y)"), escaped);
  const std::vector<std::string_view> comment = {"1.1 a (x, (y, z))", "1.0 b"};
  EXPECT_EQ(split_list("1.1 a (x, (y, z)), 1.0 b"), comment);
}

// RFC 9111 §1.2.2: delta-seconds is 1*DIGIT; too large means 2^31.
TEST(FieldValue, DeltaSecondsIsDigitsOnlyAndClampsAt2Pow31) {
  EXPECT_EQ(parse_delta_seconds("0"), seconds{0});
  EXPECT_EQ(parse_delta_seconds("3600"), seconds{3600});
  EXPECT_EQ(parse_delta_seconds("2147483648"), kMaxDeltaSeconds);
  EXPECT_EQ(parse_delta_seconds("99999999999999999999999"), kMaxDeltaSeconds);
  for (std::string_view bad : {"", "-1", "+1", "1.5", " 1", "1 ", "abc", "0x10"}) {
    EXPECT_FALSE(parse_delta_seconds(bad).has_value()) << bad;
  }
}

TEST(FieldValue, Uint64RejectsOverflowInsteadOfWrapping) {
  EXPECT_EQ(parse_uint64("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parse_uint64("18446744073709551616").has_value());
  EXPECT_FALSE(parse_uint64("").has_value());
  EXPECT_FALSE(parse_uint64("-0").has_value());
}

// RFC 9110 §5.6.4: quoted-pair stands for the octet after the backslash.
TEST(FieldValue, UnquoteUndoesQuotedPairs) {
  EXPECT_EQ(unquote(R"("a\"b\\c")"), R"(a"b\c)");
  EXPECT_EQ(unquote("token"), "token");
  EXPECT_EQ(unquote(R"("")"), "");
  EXPECT_EQ(unquote(R"(")"), R"(")");
}

TEST(FieldValue, TrimAndCaseInsensitiveCompare) {
  EXPECT_EQ(trim_ows(" \t x y \t"), "x y");
  EXPECT_TRUE(iequals("Cache-Control", "cache-CONTROL"));
  EXPECT_FALSE(iequals("Age", "Ages"));
  EXPECT_EQ(to_lower("ETag"), "etag");
}

// RFC 9110 §5.1 (names are case-insensitive) and §5.3 (lines combine with ", ").
TEST(HeaderList, LookupIsCaseInsensitiveAndJoinsLines) {
  const HeaderList fields = {{"Vary", "Accept"}, {"Date", "x"}, {"vary", "Accept-Encoding"}};
  EXPECT_EQ(first_value(fields, "VARY"), "Accept");
  EXPECT_EQ(joined_value(fields, "Vary"), "Accept, Accept-Encoding");
  EXPECT_EQ(count_fields(fields, "vary"), 2U);
  EXPECT_TRUE(has_field(fields, "date"));
  EXPECT_FALSE(joined_value(fields, "Age").has_value());
}

TEST(HeaderList, RemoveFieldRemovesEveryLine) {
  HeaderList fields = {{"Set-Cookie", "a=1"}, {"Date", "x"}, {"set-cookie", "b=2"}};
  remove_field(fields, "Set-Cookie");
  const HeaderList expected = {{"Date", "x"}};
  EXPECT_EQ(fields, expected);
}

}  // namespace
}  // namespace sumcache::daemon
