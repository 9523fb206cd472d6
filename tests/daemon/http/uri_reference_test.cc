#include "daemon/http/uri_reference.h"

#include <gtest/gtest.h>

#include "daemon/http/uri_error.h"

namespace sumcache::daemon {
namespace {

std::string resolve(std::string_view reference) {
  const auto base = parse_absolute_uri("http://a/b/c/d;p?q");
  const auto target = resolve_reference(*base, reference);
  return target ? cache_key(*target) : "error";
}

// RFC 3986 §5.4.1, normal examples (base "http://a/b/c/d;p?q").
TEST(UriReference, NormalExamples_Rfc3986_5_4_1) {
  const std::pair<std::string_view, std::string_view> table[] = {
      {"g", "http://a/b/c/g"},       {"./g", "http://a/b/c/g"},    {"g/", "http://a/b/c/g/"},
      {"/g", "http://a/g"},          {"//g", "http://g/"},         {"?y", "http://a/b/c/d;p?y"},
      {"g?y", "http://a/b/c/g?y"},   {"#s", "http://a/b/c/d;p?q"}, {"g#s", "http://a/b/c/g"},
      {"g?y#s", "http://a/b/c/g?y"}, {";x", "http://a/b/c/;x"},    {"g;x", "http://a/b/c/g;x"},
      {"", "http://a/b/c/d;p?q"},    {".", "http://a/b/c/"},       {"./", "http://a/b/c/"},
      {"..", "http://a/b/"},         {"../", "http://a/b/"},       {"../g", "http://a/b/g"},
      {"../..", "http://a/"},        {"../../", "http://a/"},      {"../../g", "http://a/g"},
  };
  for (const auto& [reference, target] : table) EXPECT_EQ(resolve(reference), target) << reference;
}

// RFC 3986 §5.4.2, abnormal examples.
TEST(UriReference, AbnormalExamples_Rfc3986_5_4_2) {
  const std::pair<std::string_view, std::string_view> table[] = {
      {"../../../g", "http://a/g"},
      {"../../../../g", "http://a/g"},
      {"/./g", "http://a/g"},
      {"/../g", "http://a/g"},
      {"g.", "http://a/b/c/g."},
      {".g", "http://a/b/c/.g"},
      {"g..", "http://a/b/c/g.."},
      {"..g", "http://a/b/c/..g"},
      {"./../g", "http://a/b/g"},
      {"./g/.", "http://a/b/c/g/"},
      {"g/./h", "http://a/b/c/g/h"},
      {"g/../h", "http://a/b/c/h"},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
      {"g;x=1/../y", "http://a/b/c/y"},
      {"http://a/b/../g", "http://a/g"},
  };
  for (const auto& [reference, target] : table) EXPECT_EQ(resolve(reference), target) << reference;
}

TEST(UriReference, RemoveDotSegments_Rfc3986_5_2_4) {
  EXPECT_EQ(remove_dot_segments("/a/b/c/./../../g"), "/a/g");
  EXPECT_EQ(remove_dot_segments("mid/content=5/../6"), "mid/6");
  EXPECT_EQ(remove_dot_segments("/.."), "/");
  EXPECT_EQ(remove_dot_segments(""), "");
}

TEST(UriReference, OtherSchemesAndBadReferencesAreErrors) {
  const auto base = *parse_absolute_uri("http://a/b");
  EXPECT_EQ(resolve_reference(base, "mailto:x@a").error(), UriErrc::unsupported_scheme);
  EXPECT_EQ(resolve_reference(base, "//user@a/").error(), UriErrc::userinfo);
  EXPECT_EQ(resolve_reference(base, "a b").error(), UriErrc::invalid_character);
}

}  // namespace
}  // namespace sumcache::daemon
