#include "daemon/http/structured_field.h"

#include <gtest/gtest.h>

#include <string>

namespace sumcache::daemon {
namespace {

std::optional<SfMember> only(std::string_view input) {
  auto members = parse_sf_dictionary(input);
  if (!members || members->size() != 1) return std::nullopt;
  return members->front();
}

// RFC 8941 §4.2.2: a bare key is Boolean true; "=" introduces an Item.
TEST(StructuredField, DictionaryMembersAndTheirTypes) {
  const auto members = parse_sf_dictionary(
      R"(a, b=?0, c=42, d=-1.5, e="x\"y\\", f=tok/en:1, g=:aGVsbG8=:, h=(1 "two" three);p)");
  ASSERT_TRUE(members.has_value());
  ASSERT_EQ(members->size(), 8U);
  const auto& m = *members;
  EXPECT_EQ(m[0].key, "a");
  EXPECT_TRUE(m[0].type == SfType::boolean && m[0].boolean);
  EXPECT_TRUE(m[1].type == SfType::boolean && !m[1].boolean);
  EXPECT_TRUE(m[2].type == SfType::integer && m[2].integer == 42);
  EXPECT_EQ(m[3].type, SfType::decimal);
  EXPECT_TRUE(m[4].type == SfType::string && m[4].text == R"(x"y\)");
  EXPECT_TRUE(m[5].type == SfType::token && m[5].text == "tok/en:1");
  EXPECT_EQ(m[6].type, SfType::byte_sequence);
  EXPECT_EQ(m[7].type, SfType::inner_list);
}

// RFC 8941 §4.2.3.2: parameters are syntax-checked, then dropped.
TEST(StructuredField, ParametersAreAcceptedAndDropped) {
  const auto m = only("max-age=60;a=1;b;c=\"s\"");
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->type == SfType::integer && m->integer == 60);
  EXPECT_FALSE(parse_sf_dictionary("max-age=60;A=1").has_value());
  EXPECT_FALSE(parse_sf_dictionary("max-age=60;").has_value());
}

// RFC 8941 §4.2: leading SP is discarded, OWS around "," allowed, an empty
// input is an empty Dictionary.
TEST(StructuredField, WhitespaceAndEmptyInput) {
  const auto members = parse_sf_dictionary("  a=1 ,\tb=2  ");
  ASSERT_TRUE(members.has_value());
  EXPECT_EQ(members->size(), 2U);
  const auto empty = parse_sf_dictionary("");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
}

// RFC 8941 §4.2.2: a repeated key is kept in order; the reader takes the last.
TEST(StructuredField, RepeatedKeysStayInOrder) {
  const auto members = parse_sf_dictionary("a=1, b, a=2");
  ASSERT_TRUE(members.has_value());
  ASSERT_EQ(members->size(), 3U);
  EXPECT_EQ(members->back().integer, 2);
}

// RFC 8941 §4.2: anything that is not a Dictionary fails as a whole.
TEST(StructuredField, InvalidDictionariesFail) {
  for (const char* bad : {
           "max-age =100",          // space before "="
           "max-age= 100",          // space after "="
           "MaX-aGe=3600",          // keys are lower case (§3.2)
           "max-age=10000, &&&&&",  // not a key
           "a,",                    // trailing comma
           ",a",                    // leading comma
           "a b",                   // two members without a comma
           "a=\"open",              // unterminated String
           "a=\"\\x\"",             // a String escapes only DQUOTE and backslash
           "a=\"\x01\"",            // a control character in a String
           "a=?2",                  // Boolean is ?0 or ?1
           "a=:a*b:",               // outside base64
           "a=(1 2",                // Inner List without ")"
           "a=(1,2)",               // Inner List members are separated by SP
           "a=1.",                  // a Decimal needs a fraction
           "a=1.2345",              // at most three fraction digits
           "a=1234567890123.5",     // at most twelve integer digits
           "a=1234567890123456",    // at most fifteen digits
           "a=-",                   // a sign alone
           "a=@",                   // not a bare item
       }) {
    EXPECT_FALSE(parse_sf_dictionary(bad).has_value()) << bad;
  }
}

// RFC 8941 §3.3.1: fifteen digits are the largest Integer.
TEST(StructuredField, IntegerBounds) {
  const auto m = only("a=999999999999999");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->integer, 999999999999999);
  EXPECT_EQ(only("a=-5")->integer, -5);
}

}  // namespace
}  // namespace sumcache::daemon
