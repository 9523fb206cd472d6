#include "daemon/admin/token_check.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

TEST(TokenCheck, TheConfiguredBearerTokenPasses) {
  EXPECT_EQ(check_bearer_token("Bearer s3cret-token", "s3cret-token"), TokenCheck::ok);
  // RFC 9110 §11.1: the scheme name is case-insensitive.
  EXPECT_EQ(check_bearer_token("bearer s3cret-token", "s3cret-token"), TokenCheck::ok);
  EXPECT_EQ(check_bearer_token("  BEARER   s3cret-token ", "s3cret-token"), TokenCheck::ok);
}

TEST(TokenCheck, AnyOtherTokenIsWrong) {
  for (const char* given : {"s3cret-toke", "s3cret-token2", "S3CRET-TOKEN", "x"}) {
    EXPECT_EQ(check_bearer_token(std::string("Bearer ") + given, "s3cret-token"), TokenCheck::wrong)
        << given;
  }
}

TEST(TokenCheck, NoBearerCredentialsAreMissing) {
  EXPECT_EQ(check_bearer_token("", "t"), TokenCheck::missing);
  EXPECT_EQ(check_bearer_token("Bearer", "t"), TokenCheck::missing);
  EXPECT_EQ(check_bearer_token("Bearer   ", "t"), TokenCheck::missing);
  EXPECT_EQ(check_bearer_token("Basic dDp0", "t"), TokenCheck::missing);
  EXPECT_EQ(check_bearer_token("t", "t"), TokenCheck::missing);
}

TEST(TokenCheck, WithoutAConfiguredTokenNothingPasses) {
  EXPECT_EQ(check_bearer_token("Bearer ", ""), TokenCheck::not_configured);
  EXPECT_EQ(check_bearer_token("Bearer anything", ""), TokenCheck::not_configured);
}

}  // namespace
}  // namespace sumcache::daemon
