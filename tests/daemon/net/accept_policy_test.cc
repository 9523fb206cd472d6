#include "daemon/net/accept_policy.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace sumcache::daemon {
namespace {

using std::chrono::milliseconds;

TEST(AcceptPolicy, ShortageOfDescriptorsOrMemoryPausesTheListener) {
  for (int e : {EMFILE, ENFILE, ENOBUFS, ENOMEM}) {
    EXPECT_EQ(classify_accept_errno(e), AcceptFailure::resources) << e;
    EXPECT_EQ(accept_action(e, true), AcceptAction::back_off) << e;
  }
}

TEST(AcceptPolicy, OneConnectionsOwnFailureIsRetriedAtOnce) {
  for (int e : {ECONNABORTED, ECONNRESET, EPROTO, EPERM, ENETUNREACH, EINTR, EAGAIN}) {
    EXPECT_EQ(classify_accept_errno(e), AcceptFailure::connection) << e;
    EXPECT_EQ(accept_action(e, true), AcceptAction::retry) << e;
  }
}

TEST(AcceptPolicy, AnUnknownErrorPausesRatherThanSpins) {
  EXPECT_EQ(classify_accept_errno(EINVAL), AcceptFailure::other);
  EXPECT_EQ(accept_action(EINVAL, true), AcceptAction::back_off);
  EXPECT_EQ(accept_action(-1, true), AcceptAction::back_off);
}

TEST(AcceptPolicy, AClosedAcceptorStopsTheLoop) {
  EXPECT_EQ(accept_action(ECANCELED, true), AcceptAction::stop);
  EXPECT_EQ(accept_action(EMFILE, false), AcceptAction::stop);
  EXPECT_EQ(accept_action(ECONNABORTED, false), AcceptAction::stop);
}

TEST(AcceptPolicy, ThePauseDoublesUpToTheCap) {
  const AcceptBackoff backoff{milliseconds(10), milliseconds(1000)};
  milliseconds pause{0};
  std::vector<long> seen;
  for (int i = 0; i < 10; ++i) {
    pause = next_pause(pause, backoff);
    seen.push_back(pause.count());
  }
  EXPECT_EQ(seen, (std::vector<long>{10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000}));
}

TEST(AcceptPolicy, AFirstPauseAboveTheCapIsTheCap) {
  EXPECT_EQ(next_pause(milliseconds(0), {milliseconds(50), milliseconds(20)}), milliseconds(20));
}

TEST(AcceptPolicy, FailureKindsHaveMetricLabels) {
  EXPECT_STREQ(to_string(AcceptFailure::resources), "resources");
  EXPECT_STREQ(to_string(AcceptFailure::connection), "connection");
  EXPECT_STREQ(to_string(AcceptFailure::other), "other");
}

}  // namespace
}  // namespace sumcache::daemon
