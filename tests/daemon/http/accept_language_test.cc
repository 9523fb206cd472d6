#include "daemon/http/accept_language.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

// RFC 4647 §2: language ranges are case-insensitive, so case is folded.
TEST(AcceptLanguage, RangesAreLowerCased_Rfc4647_2) {
  EXPECT_EQ(normalize_accept_language("EN-us, De"), "en-us, de");
}

// RFC 9110 §12.4.2: the q-value orders preferences, so members are sorted by it; between
// equal q-values the sent order is kept, because servers commonly take the first of them.
TEST(AcceptLanguage, MembersAreOrderedByQValueAndStableForEqualQ_Rfc9110_12_4_2) {
  EXPECT_EQ(normalize_accept_language("fr;q=0.5, en, de;q=0.8"), "en, de;q=0.8, fr;q=0.5");
  EXPECT_EQ(normalize_accept_language("de;q=0.8, en;q=0.9"),
            normalize_accept_language("en;q=0.9, de;q=0.8"));
  EXPECT_EQ(normalize_accept_language("en, de"), "en, de");
  EXPECT_NE(normalize_accept_language("en, de"), normalize_accept_language("de, en"));
}

// RFC 9110 §12.4.2: "q" is case-insensitive, OWS around ";" carries nothing, and a qvalue
// has one meaning however many trailing zeros it has; q=1 is the default.
TEST(AcceptLanguage, WeightIsWrittenCanonically_Rfc9110_12_4_2) {
  EXPECT_EQ(normalize_accept_language("en ; Q=0.500,de;q=1.000 , fr;q=1"), "de, fr, en;q=0.5");
  EXPECT_EQ(normalize_accept_language("da;q=0.125, sv;q=0.05"), "da;q=0.125, sv;q=0.05");
  EXPECT_EQ(normalize_accept_language("en;q=0.80"), normalize_accept_language("en;q=0.8"));
}

// RFC 9110 §12.4.2: q=0 is "not acceptable"; without "*" or a range that overlaps it, a
// language it names matches nothing and is not acceptable anyway, so the member goes.
TEST(AcceptLanguage, RedundantQZeroMembersAreDropped_Rfc9110_12_4_2) {
  EXPECT_EQ(normalize_accept_language("en, fr;q=0"), "en");
  EXPECT_EQ(normalize_accept_language("en, fr;q=0.000"), normalize_accept_language("en"));
}

// RFC 4647 §3.3.1: with "*" or an overlapping range the q=0 member excludes something that
// would otherwise be acceptable, so it stays.
TEST(AcceptLanguage, QZeroMembersThatExcludeSomethingStay_Rfc4647_3_3_1) {
  EXPECT_EQ(normalize_accept_language("*, fr;q=0"), "*, fr;q=0");
  EXPECT_EQ(normalize_accept_language("en, en-gb;q=0"), "en, en-gb;q=0");
  EXPECT_EQ(normalize_accept_language("en-gb, en;q=0"), "en-gb, en;q=0");
  EXPECT_EQ(normalize_accept_language("eng, en;q=0"), "eng");  // "en" is no prefix of "eng"
}

// RFC 9110 §12.5.4: anything outside the syntax is not normalised (the caller compares it
// as sent): a wrong range, a parameter other than q, a qvalue out of range.
TEST(AcceptLanguage, ValuesOutsideTheSyntaxAreNotNormalised_Rfc9110_12_5_4) {
  for (const char* bad :
       {"en;level=1", "en;q=1.5", "en;q=0.1234", "en;q=", "en;q=.5", "toolonglanguage", "en_US",
        "e1", "en-", "-en", "en;q=0.5;q=0.4", "\"en\""}) {
    EXPECT_FALSE(normalize_accept_language(bad).has_value()) << bad;
  }
}

TEST(AcceptLanguage, EmptyAndWildcardValues) {
  EXPECT_EQ(normalize_accept_language(""), "");
  EXPECT_EQ(normalize_accept_language(" , "), "");
  EXPECT_EQ(normalize_accept_language("*"), "*");
  EXPECT_EQ(normalize_accept_language("zh-Hant-TW, x-klingon"), "zh-hant-tw, x-klingon");
}

}  // namespace
}  // namespace sumcache::daemon
