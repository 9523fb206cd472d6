#include "daemon/session/purge_request.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

TEST(PurgeRequest, FormBodyGivesTheUrlAndItsCacheKey) {
  std::string why;
  const auto t = parse_purge_body("application/x-www-form-urlencoded",
                                  "x=1&url=http%3A%2F%2FExample.COM%3A80%2Fa%3Fb%3D1%2B2&y=2", why);
  ASSERT_TRUE(t) << why;
  EXPECT_EQ(t->url, "http://Example.COM:80/a?b=1+2");
  // The key as a GET for that URL is stored under: host lower-cased, default port dropped.
  EXPECT_EQ(t->cache_key, "http://example.com/a?b=1+2");
}

TEST(PurgeRequest, JsonBodyByContentTypeOrByItsFirstByte) {
  std::string why;
  const auto typed =
      parse_purge_body("Application/JSON; charset=utf-8", R"({"url": "https://h.example/x"})", why);
  ASSERT_TRUE(typed) << why;
  EXPECT_EQ(typed->cache_key, "https://h.example/x");
  const auto sniffed = parse_purge_body("", R"({"url": "http://h.example:8080/"})", why);
  ASSERT_TRUE(sniffed) << why;
  EXPECT_EQ(sniffed->cache_key, "http://h.example:8080/");
}

TEST(PurgeRequest, UnusableBodiesSayWhy) {
  const std::pair<const char*, const char*> bad[] = {
      {"application/json", "{not json"},
      {"application/json", R"({"url": 5})"},
      {"application/json", R"(["http://h/"])"},
      {"application/x-www-form-urlencoded", "uri=http://h/"},
      {"application/x-www-form-urlencoded", "url=http%3"},
      {"application/x-www-form-urlencoded", "url=%zz"},
      {"application/x-www-form-urlencoded", "url=/relative/path"},
      {"application/x-www-form-urlencoded", "url=ftp://h/file"},
      {"", ""},
  };
  for (const auto& [type, body] : bad) {
    std::string why;
    EXPECT_FALSE(parse_purge_body(type, body, why)) << body;
    EXPECT_FALSE(why.empty()) << body;
  }
}

TEST(PurgeRequest, ATagOrAPrefixInsteadOfAUrl) {
  std::string why;
  const auto tag = parse_purge_body("application/json", R"({"tag": "product-42"})", why);
  ASSERT_TRUE(tag) << why;
  EXPECT_EQ(tag->kind, PurgeKind::tag);
  EXPECT_EQ(tag->cache_key, "product-42");
  const auto form_tag = parse_purge_body("application/x-www-form-urlencoded", "tag=a%2Fb", why);
  ASSERT_TRUE(form_tag) << why;
  EXPECT_EQ(form_tag->cache_key, "a/b");
  // A prefix is keyed like a URL, so that it compares with stored keys byte for byte.
  const auto prefix = parse_purge_body("", R"({"prefix": "http://Example.COM:80/static/"})", why);
  ASSERT_TRUE(prefix) << why;
  EXPECT_EQ(prefix->kind, PurgeKind::prefix);
  EXPECT_EQ(prefix->url, "http://Example.COM:80/static/");
  EXPECT_EQ(prefix->cache_key, "http://example.com/static/");
  EXPECT_STREQ(purge_member(PurgeKind::prefix), "prefix");
}

TEST(PurgeRequest, BadTagsAndPrefixesAndTwoTargetsAreRefused) {
  const char* bad[] = {
      R"({"tag": ""})", R"({"tag": "two tags"})",    R"({"tag": "a,b"})",
      R"({"tag": 7})",  R"({"prefix": "/static/"})", R"({"url": "http://h/x", "tag": "t"})",
  };
  for (const char* body : bad) {
    std::string why;
    EXPECT_FALSE(parse_purge_body("application/json", body, why)) << body;
    EXPECT_FALSE(why.empty()) << body;
  }
  EXPECT_TRUE(valid_purge_tag(std::string(1024, 't')));
  EXPECT_FALSE(valid_purge_tag(std::string(1025, 't')));
  EXPECT_FALSE(valid_purge_tag("tab\there"));
}

TEST(PurgeRequest, FormDecodingHandlesPlusAndPercent) {
  EXPECT_EQ(form_decode("a+b%20c%2B%25"), "a b c+%");
  EXPECT_EQ(form_decode(""), "");
  EXPECT_FALSE(form_decode("%"));
  EXPECT_FALSE(form_decode("%4"));
  EXPECT_FALSE(form_decode("%g0"));
}

}  // namespace
}  // namespace sumcache::daemon
