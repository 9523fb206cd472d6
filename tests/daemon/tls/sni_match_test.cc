// Which certificate answers a server name (daemon/tls/sni_match.h), without OpenSSL.

#include "daemon/tls/sni_match.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

const std::vector<std::vector<std::string>> kNames = {
    {"www.example.com", "example.com"},   // 0: the default
    {"*.static.example.net"},             // 1: a wildcard
    {"a.static.example.net"},             // 2: an exact name the wildcard also covers
    {"api.example.org", "*.example.org"}  // 3
};

TEST(SniMatch, NoServerNameGetsTheDefault) { EXPECT_EQ(pick_certificate(kNames, ""), 0U); }

TEST(SniMatch, AnUnknownNameGetsTheDefault) {
  EXPECT_EQ(pick_certificate(kNames, "other.test"), 0U);
}

TEST(SniMatch, ExactNamesWinOverWildcardsWhateverTheOrder) {
  EXPECT_EQ(pick_certificate(kNames, "a.static.example.net"), 2U);
  EXPECT_EQ(pick_certificate(kNames, "b.static.example.net"), 1U);
  EXPECT_EQ(pick_certificate(kNames, "api.example.org"), 3U);
  EXPECT_EQ(pick_certificate(kNames, "example.com"), 0U);
}

TEST(SniMatch, CaseAndOneTrailingDotDoNotMatter) {
  EXPECT_EQ(pick_certificate(kNames, "B.Static.Example.NET"), 1U);
  EXPECT_EQ(pick_certificate(kNames, "api.example.org."), 3U);
}

TEST(SniMatch, AWildcardCoversExactlyOneLabel) {
  EXPECT_EQ(pick_certificate(kNames, "static.example.net"), 0U);
  EXPECT_EQ(pick_certificate(kNames, "x.y.static.example.net"), 0U);
  EXPECT_EQ(pick_certificate(kNames, ".static.example.net"), 0U);
  EXPECT_EQ(pick_certificate(kNames, "www.example.org"), 3U);
}

TEST(SniMatch, NoCertificatesStillAnswersTheDefaultIndex) {
  EXPECT_EQ(pick_certificate({}, "www.example.com"), 0U);
}

}  // namespace
}  // namespace sumcache::daemon
