#include "daemon/http/vary.h"

#include <gtest/gtest.h>

#include <vector>

namespace sumcache::daemon {
namespace {

// RFC 9111 §4.1: without Vary every request matches.
TEST(Vary, EmptyVaryMatchesEveryRequest) {
  EXPECT_EQ(secondary_key("", {{"Accept", "x"}}), "");
  EXPECT_TRUE(vary_matches("", "", {{"Accept-Encoding", "gzip"}}));
}

// RFC 9111 §4.1: "*" always fails to match.
TEST(Vary, StarNeverMatches_Rfc9111_4_1) {
  EXPECT_FALSE(secondary_key("*", {}).has_value());
  EXPECT_FALSE(secondary_key("Accept, *", {{"Accept", "x"}}).has_value());
  EXPECT_FALSE(vary_matches("*", "", {}));
  EXPECT_TRUE(vary_is_star(" accept ,* "));
  EXPECT_FALSE(vary_is_star("Accept"));
}

// The key follows Vary's order with names lower-cased, so its text is stable.
TEST(Vary, KeyFollowsVaryOrderWithLowerCaseNames) {
  const HeaderList request = {{"accept-encoding", "gzip"}, {"ACCEPT-LANGUAGE", "en"}};
  EXPECT_EQ(secondary_key("Accept-Language, Accept-Encoding", request),
            "accept-language:en\naccept-encoding:gzip\n");
  EXPECT_EQ(secondary_key("accept-encoding,ACCEPT-LANGUAGE", request),
            "accept-encoding:gzip\naccept-language:en\n");
}

TEST(Vary, FieldNamesMatchCaseInsensitively_Rfc9110_5_1) {
  const auto stored = secondary_key("Accept-Encoding", {{"Accept-Encoding", "br"}});
  EXPECT_TRUE(vary_matches("accept-encoding", *stored, {{"ACCEPT-ENCODING", "br"}}));
}

// RFC 9111 §4.1: an absent field only matches an absent field.
TEST(Vary, AbsentMatchesOnlyAbsent) {
  const auto absent = secondary_key("Accept-Encoding", {});
  EXPECT_EQ(absent, "accept-encoding\n");
  EXPECT_TRUE(vary_matches("Accept-Encoding", *absent, {{"Accept", "x"}}));
  EXPECT_FALSE(vary_matches("Accept-Encoding", *absent, {{"Accept-Encoding", ""}}));
  EXPECT_FALSE(vary_matches("Accept-Encoding", *absent, {{"Accept-Encoding", "gzip"}}));
}

// RFC 9111 §4.1: whitespace where the syntax allows it and combining lines
// do not make requests differ.
TEST(Vary, NormalizesWhitespaceAndFieldLines) {
  const auto stored = secondary_key("Accept-Encoding", {{"Accept-Encoding", "gzip, deflate"}});
  EXPECT_TRUE(vary_matches("Accept-Encoding", *stored, {{"Accept-Encoding", "gzip,deflate"}}));
  EXPECT_TRUE(
      vary_matches("Accept-Encoding", *stored, {{"Accept-Encoding", "  gzip ,\t deflate ,"}}));
  EXPECT_TRUE(vary_matches("Accept-Encoding", *stored,
                           {{"Accept-Encoding", "gzip"}, {"Accept-Encoding", "deflate"}}));
  const auto agent = secondary_key("User-Agent", {{"User-Agent", "a/1  (x;\ty)"}});
  EXPECT_EQ(agent, "user-agent:a/1 (x; y)\n");
}

// Values are compared as they are: a needless miss is safe, a false match is not.
TEST(Vary, DifferentValuesDoNotMatch) {
  const auto stored = secondary_key("Accept-Encoding", {{"Accept-Encoding", "gzip"}});
  EXPECT_FALSE(vary_matches("Accept-Encoding", *stored, {{"Accept-Encoding", "br"}}));
  EXPECT_FALSE(vary_matches("Accept-Encoding", *stored, {{"Accept-Encoding", "GZIP"}}));
  EXPECT_FALSE(vary_matches("Accept-Encoding", *stored, {{"Accept-Encoding", "gzip, br"}}));
}

TEST(Vary, WhitespaceInsideQuotedStringsIsKept) {
  EXPECT_NE(secondary_key("X-Q", {{"X-Q", R"("a  b")"}}),
            secondary_key("X-Q", {{"X-Q", R"("a b")"}}));
}

// RFC 9111 §4.1 allows normalising a selecting field where the semantics are the same:
// Accept-Language in its canonical form (accept_language.h), only Accept-Language.
TEST(Vary, AcceptLanguageIsComparedNormalised_Rfc9111_4_1) {
  const auto stored = secondary_key("Accept-Language", {{"Accept-Language", "de;q=0.5, EN"}});
  EXPECT_EQ(stored, "accept-language:en, de;q=0.5\n");
  EXPECT_TRUE(
      vary_matches("Accept-Language", *stored,
                   {{"Accept-Language", "en;q=1.0, fr;q=0"}, {"Accept-Language", "de;Q=0.50"}}));
  EXPECT_FALSE(vary_matches("Accept-Language", *stored, {{"Accept-Language", "de;q=0.5, fr"}}));
  EXPECT_NE(secondary_key("X-Lang", {{"X-Lang", "EN"}}),
            secondary_key("X-Lang", {{"X-Lang", "en"}}));
}

// A value outside Accept-Language's syntax is compared as it is sent.
TEST(Vary, MalformedAcceptLanguageIsComparedAsSent_Rfc9111_4_1) {
  EXPECT_EQ(secondary_key("Accept-Language", {{"Accept-Language", "EN;level=1,  de"}}),
            "accept-language:EN;level=1, de\n");
}

TEST(Vary, RepeatedNamesCountOnce) {
  EXPECT_EQ(secondary_key("Accept, accept, ACCEPT", {{"Accept", "x"}}), "accept:x\n");
}

// The store groups a URL's variants by vary_fields of their keys: the key a
// request has under a group must be the key it has under the stored Vary.
TEST(Vary, FieldsOfAKeyGiveEveryRequestTheSameKey_Rfc9111_4_1) {
  const std::vector<HeaderList> requests = {
      {},
      {{"User-Agent", "curl/8"}, {"Accept-Language", "de;q=0.5, EN"}},
      {{"accept-encoding", "gzip,  br"}, {"Accept-Encoding", "zstd"}, {"X-Q", R"("a:b")"}},
  };
  for (const char* vary : {"User-Agent", "Accept-Encoding, accept-encoding, ACCEPT-LANGUAGE",
                           " X-Q ,User-Agent", "Accept-Language,X-Absent"}) {
    for (const HeaderList& stored_request : requests) {
      const auto stored = secondary_key(vary, stored_request);
      ASSERT_TRUE(stored);
      const std::string fields = vary_fields(*stored);
      for (const HeaderList& request : requests) {
        EXPECT_EQ(secondary_key(fields, request), secondary_key(vary, request))
            << vary << " as " << fields;
      }
    }
  }
  EXPECT_EQ(vary_fields(*secondary_key("Accept-Encoding, User-Agent", {{"User-Agent", "a:b"}})),
            "accept-encoding, user-agent");
  EXPECT_EQ(vary_fields(""), "");
}

}  // namespace
}  // namespace sumcache::daemon
