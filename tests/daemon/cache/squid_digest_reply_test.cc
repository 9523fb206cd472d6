// The answer to a request for this node's Squid digest
// (daemon/cache/squid_digest_reply.h): status and fields as Squid serves its
// own digest, conditional GET per RFC 9110 §13.1.3, Expires = the next build.

#include "daemon/cache/squid_digest_reply.h"

#include <gtest/gtest.h>

#include <map>

#include "daemon/http/http_date.h"

namespace sumcache::daemon {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::system_clock;

const Clock::time_point kNow = Clock::time_point(1'700'000'000s) + 250ms;

SquidDigestSnapshot snapshot() {
  SquidDigestSnapshot s;
  s.body = std::string(128 + 40, '\0');
  s.last_modified = std::chrono::sys_seconds(1'700'000'000s - 30s);
  s.next_build = kNow + 29'500ms;
  return s;
}

std::map<std::string, std::string> fields_of(const SquidDigestReply& r) {
  return {r.fields.begin(), r.fields.end()};
}

// Squid: 200 "Cache Digest OK", application/cache-digest, Last-Modified, Expires.
TEST(SquidDigestReply, GetIsServedWithSquidsFields) {
  const auto s = snapshot();
  const auto r = squid_digest_reply(&s, "GET", std::nullopt, kNow);
  EXPECT_EQ(r.status, 200u);
  EXPECT_TRUE(r.body);
  const auto f = fields_of(r);
  EXPECT_EQ(f.at("Content-Type"), "application/cache-digest");
  EXPECT_EQ(f.at("Last-Modified"), format_http_date(s.last_modified));
  // The next build, rounded up to the second.
  EXPECT_EQ(f.at("Expires"), format_http_date(std::chrono::sys_seconds(1'700'000'030s)));
  EXPECT_EQ(f.at("Date"), format_http_date(std::chrono::sys_seconds(1'700'000'000s)));
}

// RFC 9110 §9.3.2: HEAD gets the GET's fields and no body.
TEST(SquidDigestReply, HeadHasNoBody) {
  const auto s = snapshot();
  const auto r = squid_digest_reply(&s, "HEAD", std::nullopt, kNow);
  EXPECT_EQ(r.status, 200u);
  EXPECT_FALSE(r.body);
  EXPECT_EQ(fields_of(r).at("Content-Type"), "application/cache-digest");
}

// RFC 9110 §15.5.6: 405 with Allow.
TEST(SquidDigestReply, OtherMethodsAreRefusedWithAllow) {
  const auto s = snapshot();
  for (const char* method : {"POST", "PUT", "DELETE", "PURGE"}) {
    const auto r = squid_digest_reply(&s, method, std::nullopt, kNow);
    EXPECT_EQ(r.status, 405u) << method;
    EXPECT_EQ(fields_of(r).at("Allow"), "GET, HEAD");
  }
}

// Before the first build: 503 with Retry-After (RFC 9110 §10.2.3), which a
// Squid treats as a failed fetch and retries with its backoff.
TEST(SquidDigestReply, NotBuiltYetIs503) {
  const auto r = squid_digest_reply(nullptr, "GET", std::nullopt, kNow);
  EXPECT_EQ(r.status, 503u);
  EXPECT_EQ(fields_of(r).at("Retry-After"), "1");
  EXPECT_FALSE(r.body);
}

// RFC 9110 §13.1.3: not modified since the date given (equal or later) -> 304.
TEST(SquidDigestReply, IfModifiedSinceAtOrAfterLastModifiedIs304) {
  const auto s = snapshot();
  for (const auto since : {s.last_modified, s.last_modified + 10s}) {
    const std::string ims = format_http_date(since);
    const auto r = squid_digest_reply(&s, "GET", ims, kNow);
    EXPECT_EQ(r.status, 304u) << ims;
    EXPECT_FALSE(r.body);
    // RFC 9110 §15.4.5: the fields a 200 would have sent that update the stored one.
    EXPECT_EQ(fields_of(r).count("Expires"), 1u);
    EXPECT_EQ(fields_of(r).count("Last-Modified"), 1u);
  }
}

TEST(SquidDigestReply, IfModifiedSinceBeforeLastModifiedIs200) {
  const auto s = snapshot();
  const auto r = squid_digest_reply(&s, "GET", format_http_date(s.last_modified - 1s), kNow);
  EXPECT_EQ(r.status, 200u);
  EXPECT_TRUE(r.body);
}

// RFC 9110 §13.1.3: an invalid date, or one later than now, is ignored.
TEST(SquidDigestReply, InvalidOrFutureIfModifiedSinceIsIgnored) {
  const auto s = snapshot();
  EXPECT_EQ(squid_digest_reply(&s, "GET", "yesterday", kNow).status, 200u);
  EXPECT_EQ(squid_digest_reply(
                &s, "GET", format_http_date(std::chrono::sys_seconds(1'700'000'000s + 3600s)), kNow)
                .status,
            200u);
}

// An overdue build still gets an Expires in the future: the next second.
TEST(SquidDigestExpires, NeverInThePast) {
  EXPECT_EQ(squid_digest_expires(kNow - 10s, kNow), std::chrono::sys_seconds(1'700'000'001s));
  EXPECT_EQ(squid_digest_expires(kNow + 59'100ms, kNow), std::chrono::sys_seconds(1'700'000'060s));
}

TEST(SquidDigestSchedule, NextBuildAnIntervalAfterTheLastStart) {
  const auto t0 = std::chrono::steady_clock::time_point(100s);
  const auto next = next_squid_digest_build(t0, t0 + 200ms, 60s);
  EXPECT_EQ(next.next, t0 + 60s);
  EXPECT_FALSE(next.overrun);
}

// Squid's "overlap detected": a build longer than the interval is an overrun,
// and the next one waits a whole interval after it.
TEST(SquidDigestSchedule, ABuildLongerThanTheIntervalIsAnOverrun) {
  const auto t0 = std::chrono::steady_clock::time_point(100s);
  const auto next = next_squid_digest_build(t0, t0 + 3s, 2s);
  EXPECT_EQ(next.next, t0 + 5s);
  EXPECT_TRUE(next.overrun);
}

}  // namespace
}  // namespace sumcache::daemon
