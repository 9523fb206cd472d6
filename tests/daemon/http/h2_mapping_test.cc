#include "daemon/http/h2_mapping.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

// RFC 9113 §8.2.1, §8.2.2: lowercase names, no connection-specific fields.
TEST(H2Mapping, AResponseHeadLosesItsConnectionFieldsAndItsCase_Rfc9113_8_2) {
  const auto head = h2_response_head(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close, X-Hop\r\n"
      "Keep-Alive: timeout=5\r\nTransfer-Encoding: chunked\r\nX-Hop: 1\r\nAge:  3 \r\n\r\n");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200U);
  const HeaderList want = {{"content-type", "text/plain"}, {"age", "3"}};
  EXPECT_EQ(head->fields, want);
}

TEST(H2Mapping, AHeadSplitAcrossItsTextStillParses) {
  const auto head = h2_response_head("HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\n");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 304U);
  EXPECT_EQ(head->fields, (HeaderList{{"etag", "\"a\""}}));
}

TEST(H2Mapping, WhatIsNoHeadIsRefused) {
  EXPECT_FALSE(h2_response_head(""));
  EXPECT_FALSE(h2_response_head("HTTP/1.1 20 OK\r\n\r\n"));
  EXPECT_FALSE(h2_response_head("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n"));
  EXPECT_FALSE(h2_response_head("HTTP/1.1 200 OK\r\nA: unterminated"));
  EXPECT_FALSE(h2_response_head("ICY 200 OK\r\n\r\n"));
}

TEST(H2Mapping, AReverseProxyRequestIsOriginFormWithHostFromAuthority) {
  const auto t = h2_target({"GET", "https", "www.example:8443", "/a?b"}, std::nullopt, false);
  ASSERT_TRUE(std::holds_alternative<H2Target>(t));
  EXPECT_EQ(std::get<H2Target>(t).target, "/a?b");
  EXPECT_EQ(std::get<H2Target>(t).host, "www.example:8443");
}

TEST(H2Mapping, AForwardProxyRequestIsAbsoluteForm) {
  const auto t = h2_target({"GET", "http", "origin.example", "/x"}, std::nullopt, true);
  ASSERT_TRUE(std::holds_alternative<H2Target>(t));
  EXPECT_EQ(std::get<H2Target>(t).target, "http://origin.example/x");
}

// RFC 9113 §8.3.1: Host naming another authority than :authority is malformed;
// the key and the forwarded Host must be one value (issue 27's class of defect).
TEST(H2Mapping, AHostThatDisagreesWithAuthorityIsRefused_Rfc9113_8_3_1) {
  const auto bad = h2_target({"GET", "https", "victim.example", "/p"},
                             std::string_view("attacker.example"), false);
  EXPECT_TRUE(std::holds_alternative<std::string>(bad));
  const auto same = h2_target({"GET", "https", "Victim.Example", "/p"},
                              std::string_view("victim.example"), false);
  EXPECT_TRUE(std::holds_alternative<H2Target>(same));
}

TEST(H2Mapping, HostStandsInForAMissingAuthority) {
  const auto t = h2_target({"GET", "https", "", "/p"}, std::string_view("site.example"), false);
  ASSERT_TRUE(std::holds_alternative<H2Target>(t));
  EXPECT_EQ(std::get<H2Target>(t).host, "site.example");
  EXPECT_TRUE(std::holds_alternative<std::string>(
      h2_target({"GET", "https", "", "/p"}, std::nullopt, false)));
}

TEST(H2Mapping, ConnectNamesItsAuthority) {
  const auto t = h2_target({"CONNECT", "", "origin.example:443", ""}, std::nullopt, true);
  ASSERT_TRUE(std::holds_alternative<H2Target>(t));
  EXPECT_EQ(std::get<H2Target>(t).target, "origin.example:443");
  EXPECT_TRUE(
      std::holds_alternative<std::string>(h2_target({"CONNECT", "", "", ""}, std::nullopt, true)));
}

}  // namespace
}  // namespace sumcache::daemon
