#include "daemon/http/cache_key.h"

#include <gtest/gtest.h>

#include "daemon/http/uri_error.h"

namespace sumcache::daemon {
namespace {

std::string key_of(std::string_view uri) {
  const auto parsed = parse_absolute_uri(uri);
  return parsed ? cache_key(*parsed) : "error: " + parsed.error().message();
}

// RFC 9110 §4.2.3: the normalizations http(s) URIs allow, and no others.
TEST(CacheKey, NormalizationTable_Rfc9110_4_2_3) {
  const std::pair<std::string_view, std::string_view> table[] = {
      {"http://example.com/a", "http://example.com/a"},
      {"HTTP://Example.COM/a", "http://example.com/a"},
      {"http://example.com:80/a", "http://example.com/a"},
      {"https://example.com:443/a", "https://example.com/a"},
      {"http://example.com:443/a", "http://example.com:443/a"},
      {"https://example.com:80/a", "https://example.com:80/a"},
      {"http://example.com:8080/a", "http://example.com:8080/a"},
      {"http://example.com:/a", "http://example.com/a"},
      {"http://example.com", "http://example.com/"},
      {"http://example.com?q", "http://example.com/?q"},
      {"http://example.com/A/b?Q=1&x=Y", "http://example.com/A/b?Q=1&x=Y"},
      {"http://example.com/a?", "http://example.com/a?"},
      {"http://example.com/a#frag", "http://example.com/a"},
      {"http://example.com/a?b#frag", "http://example.com/a?b"},
      {"http://example.com/a%2Fb/../c", "http://example.com/a%2Fb/../c"},
      {"http://[2001:DB8::1]:8080/x", "http://[2001:db8::1]:8080/x"},
      {"http://[::1]/", "http://[::1]/"},
      {"http://192.0.2.1:0080/", "http://192.0.2.1/"},
      {"http://example.com:65535/a?", "http://example.com:65535/a?"},
  };
  for (const auto& [uri, key] : table) EXPECT_EQ(key_of(uri), key) << uri;
}

// RFC 9112 §3.2.2: absolute-form (a forward proxy's request) stands alone.
TEST(CacheKey, AbsoluteFormIgnoresHostHeader) {
  const auto uri = effective_request_uri("http://Host:80/a?b", "other.example", "https");
  ASSERT_TRUE(uri.ok());
  EXPECT_EQ(cache_key(*uri), "http://host/a?b");
}

// RFC 9112 §3.3: origin-form (a reverse proxy's request) takes Host and the
// scheme the connection used.
TEST(CacheKey, OriginFormUsesHostAndListenerScheme) {
  const auto uri = effective_request_uri("/img/a.png?v=2", " WWW.Example.org:443 ", "https");
  ASSERT_TRUE(uri.ok());
  EXPECT_EQ(uri->host, "www.example.org");
  EXPECT_EQ(uri->port, 443);
  EXPECT_EQ(cache_key(*uri), "https://www.example.org/img/a.png?v=2");
  EXPECT_EQ(cache_key(*effective_request_uri("/", "a:8080", "HTTP")), "http://a:8080/");
}

TEST(CacheKey, OriginFormWithoutHostIsRefused_Rfc9112_3_2) {
  EXPECT_EQ(effective_request_uri("/a", std::nullopt, "http").error(), UriErrc::missing_host);
  EXPECT_EQ(effective_request_uri("/a", "  ", "http").error(), UriErrc::missing_host);
  EXPECT_EQ(effective_request_uri("/a", ":80", "http").error(), UriErrc::missing_host);
}

// Asterisk-form (OPTIONS *) and authority-form (CONNECT) name no cacheable resource.
TEST(CacheKey, AsteriskAndAuthorityFormsAreRefused_Rfc9112_3_2) {
  EXPECT_EQ(effective_request_uri("*", "a", "http").error(), UriErrc::unsupported_form);
  EXPECT_EQ(effective_request_uri("example.com:443", "a", "http").error(),
            UriErrc::unsupported_form);
  EXPECT_EQ(effective_request_uri("", "a", "http").error(), UriErrc::empty);
}

// RFC 9110 §4.2.1 (no empty host) and §4.2.4 (userinfo is an error).
TEST(CacheKey, MalformedUrisAreRefusedWithAReason) {
  const std::pair<std::string_view, UriErrc> table[] = {
      {"", UriErrc::empty},
      {"ftp://example.com/", UriErrc::unsupported_scheme},
      {"://example.com/", UriErrc::unsupported_scheme},
      {"example.com/a", UriErrc::unsupported_scheme},
      {"http:/example.com/", UriErrc::missing_authority},
      {"http:///a", UriErrc::missing_host},
      {"http://user:pw@example.com/", UriErrc::userinfo},
      {"http://exa mple.com/", UriErrc::invalid_host},
      {"http://exa\"mple.com/", UriErrc::invalid_host},
      {"http://[::1/", UriErrc::invalid_host},
      {"http://[::1]x/", UriErrc::invalid_host},
      {"http://a:b:c/", UriErrc::invalid_port},
      {"http://example.com:0/", UriErrc::invalid_port},
      {"http://example.com:65536/", UriErrc::invalid_port},
      {"http://example.com:8a/", UriErrc::invalid_port},
      {"http://example.com/a b", UriErrc::invalid_character},
      {"http://example.com/a\x01", UriErrc::invalid_character},
      {"http://example.com/caf\xc3\xa9", UriErrc::invalid_character},
  };
  for (const auto& [uri, error] : table) {
    const auto parsed = parse_absolute_uri(uri);
    EXPECT_EQ(parsed.error(), error) << uri;
  }
}

// Issue 27 item 1: one host, one spelling. The key, the Host sent upstream
// and the log line are made from it, so spellings that a resolver or an
// origin would take for one name must make one key, and the rest are refused.
TEST(CacheKey, HostHasOneCanonicalSpelling) {
  const std::pair<std::string_view, std::string_view> same[] = {
      {"victim.example", "http://victim.example/p"},
      {"VICTIM.Example", "http://victim.example/p"},
      {"victim.example.", "http://victim.example/p"},
      {"victim.example:80", "http://victim.example/p"},
      {"Victim.Example.:80", "http://victim.example/p"},
      {"victim.example:", "http://victim.example/p"},
      {"victim.example:8080", "http://victim.example:8080/p"},
      {"[::1]:8080", "http://[::1]:8080/p"},
  };
  for (const auto& [host, key] : same) {
    const auto uri = effective_request_uri("/p", host, "http");
    ASSERT_TRUE(uri.ok()) << host;
    EXPECT_EQ(cache_key(*uri), key) << host;
  }
  EXPECT_EQ(cache_key(*parse_absolute_uri("http://Victim.Example.:80/p")),
            "http://victim.example/p");
}

TEST(CacheKey, HostsWithUserinfoPathPercentOrNonAsciiAreRefused) {
  const std::pair<std::string_view, UriErrc> table[] = {
      {"user@victim.example", UriErrc::userinfo},
      {"victim.example/p", UriErrc::invalid_host},
      {"victim.example?q", UriErrc::invalid_host},
      {"%76ictim.example", UriErrc::invalid_host},
      {"b\xc3\xbc"
       "cher.example",
       UriErrc::invalid_host},
      {"victim..example", UriErrc::invalid_host},
      {".victim.example", UriErrc::invalid_host},
      {"victim.example..", UriErrc::invalid_host},
      {".", UriErrc::invalid_host},
      {"[fe80::1%25eth0]", UriErrc::invalid_host},
      {"[v1.x]", UriErrc::invalid_host},
      {"[]", UriErrc::invalid_host},
  };
  for (const auto& [host, error] : table) {
    EXPECT_EQ(effective_request_uri("/p", host, "http").error(), error) << host;
    EXPECT_FALSE(valid_host_field(host)) << host;
  }
  EXPECT_TRUE(valid_host_field(""));  // RFC 9112 §3.2: a target without an authority
  EXPECT_TRUE(valid_host_field(" xn--bcher-kva.example:8080 "));
}

// What keep mode forwards as Host: the authority the key holds.
TEST(CacheKey, CanonicalAuthorityDropsOnlyTheDefaultPort) {
  EXPECT_EQ(canonical_authority(*parse_absolute_uri("http://A.example.:80/x")), "a.example");
  EXPECT_EQ(canonical_authority(*parse_absolute_uri("https://a.example:80/x")), "a.example:80");
  EXPECT_EQ(canonical_authority(*parse_absolute_uri("https://[::1]:443/")), "[::1]");
  EXPECT_EQ(canonical_authority(*effective_request_uri("/", "a.example:8080", "http")),
            "a.example:8080");
}

TEST(CacheKey, ErrorsHaveTheirOwnCategoryAndMessages) {
  const std::error_code ec = UriErrc::userinfo;
  EXPECT_STREQ(ec.category().name(), "sumcache.uri");
  EXPECT_NE(ec.message().find("userinfo"), std::string::npos);
}

// RFC 9110 §4.3.1: an origin is scheme, host and port.
TEST(CacheKey, SameOriginComparesSchemeHostAndPort) {
  const auto a = *parse_absolute_uri("http://Example.com/a");
  EXPECT_TRUE(same_origin(a, *parse_absolute_uri("http://example.com:80/other?q")));
  EXPECT_FALSE(same_origin(a, *parse_absolute_uri("https://example.com/a")));
  EXPECT_FALSE(same_origin(a, *parse_absolute_uri("http://example.com:8080/a")));
  EXPECT_FALSE(same_origin(a, *parse_absolute_uri("http://www.example.com/a")));
}

}  // namespace
}  // namespace sumcache::daemon
