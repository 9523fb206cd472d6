#include "daemon/http/upstream_replay.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

using std::chrono::milliseconds;

// RFC 9110 §9.2.2: the safe methods, PUT and DELETE are idempotent.
TEST(UpstreamReplay, IdempotentMethods_Rfc9110_9_2_2) {
  for (std::string_view m : {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}) {
    EXPECT_TRUE(is_idempotent_method(m)) << m;
  }
  for (std::string_view m : {"POST", "PATCH", "CONNECT", "PURGE", "get", "put", "", "GETX"}) {
    EXPECT_FALSE(is_idempotent_method(m)) << m;
  }
}

TEST(UpstreamReplay, BodyDeclaredWithinTheLimitWillBeHeldWhole) {
  EXPECT_EQ(planned_body_hold(false, std::nullopt), BodyHold::none);
  EXPECT_EQ(planned_body_hold(true, 0), BodyHold::whole);
  EXPECT_EQ(planned_body_hold(true, kReplayBodyLimit), BodyHold::whole);
  EXPECT_EQ(planned_body_hold(true, kReplayBodyLimit + 1), BodyHold::partial);
  EXPECT_EQ(planned_body_hold(true, std::nullopt), BodyHold::partial);  // chunked
}

// RFC 9112 §9.3.1: a proxy MUST NOT automatically retry a non-idempotent request.
TEST(UpstreamReplay, OnlyIdempotentRequestsWithTheirBodyAtHandReplay_Rfc9112_9_3_1) {
  EXPECT_TRUE(may_replay("GET", BodyHold::none));
  EXPECT_TRUE(may_replay("PUT", BodyHold::whole));
  EXPECT_TRUE(may_replay("DELETE", BodyHold::none));
  EXPECT_FALSE(may_replay("PUT", BodyHold::partial));
  EXPECT_FALSE(may_replay("POST", BodyHold::none));
  EXPECT_FALSE(may_replay("POST", BodyHold::whole));
  EXPECT_FALSE(may_replay("PATCH", BodyHold::whole));
}

TEST(UpstreamReplay, UnreplayableRequestsTakeOnlyRecentlyIdleConnections) {
  EXPECT_EQ(max_idle_for_reuse(true, milliseconds(1000)), milliseconds::max());
  EXPECT_EQ(max_idle_for_reuse(false, milliseconds(1000)), milliseconds(1000));
  EXPECT_EQ(max_idle_for_reuse(false, milliseconds(0)), milliseconds(0));
}

TEST(UpstreamReplay, RetryOnceOnAFreshConnectionWhenAReusedOneFailedSilently) {
  const FailedAttempt retryable{
      .reused = true, .response_seen = false, .replayable = true, .attempt = 0};
  EXPECT_TRUE(retry_on_fresh_connection(retryable));
  auto with = [&](auto change) {
    FailedAttempt f = retryable;
    change(f);
    return retry_on_fresh_connection(f);
  };
  EXPECT_FALSE(with([](FailedAttempt& f) { f.reused = false; }));  // the origin's own failure
  EXPECT_FALSE(with([](FailedAttempt& f) { f.response_seen = true; }));
  EXPECT_FALSE(with([](FailedAttempt& f) { f.replayable = false; }));
  EXPECT_FALSE(with([](FailedAttempt& f) { f.attempt = 1; }));  // once only
}

}  // namespace
}  // namespace sumcache::daemon
