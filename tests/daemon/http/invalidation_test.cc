#include "daemon/http/invalidation.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

using Keys = std::vector<std::string>;

const EffectiveUri kTarget = *parse_absolute_uri("http://shop.example/cart/items?id=7");

// RFC 9110 §9.2.1: safe methods never invalidate.
TEST(Invalidation, SafeMethodsInvalidateNothing_Rfc9111_4_4) {
  for (std::string_view method : {"GET", "HEAD", "OPTIONS", "TRACE"}) {
    EXPECT_TRUE(invalidation_keys(method, 200, kTarget, {}).empty()) << method;
    EXPECT_TRUE(is_safe_method(method));
  }
}

// RFC 9111 §4.4: an unsafe method with a 2xx or 3xx invalidates the target.
TEST(Invalidation, UnsafeMethodWithNonErrorStatusInvalidatesTarget_Rfc9111_4_4) {
  for (std::string_view method : {"POST", "PUT", "DELETE", "PATCH"}) {
    for (int status : {200, 204, 299, 301, 303, 399}) {
      EXPECT_EQ(invalidation_keys(method, status, kTarget, {}),
                Keys{"http://shop.example/cart/items?id=7"})
          << method << " " << status;
    }
  }
}

TEST(Invalidation, ErrorStatusesInvalidateNothing) {
  for (int status : {100, 400, 404, 500, 503}) {
    EXPECT_TRUE(invalidation_keys("POST", status, kTarget, {}).empty()) << status;
  }
}

// RFC 9111 §4.4 "including methods whose safety is unknown"; RFC 9110 §9.1:
// method names are case-sensitive, so "get" is not GET.
TEST(Invalidation, UnknownMethodsCountAsUnsafe) {
  EXPECT_FALSE(is_safe_method("PURGE"));
  EXPECT_FALSE(is_safe_method("get"));
  EXPECT_EQ(invalidation_keys("MKCOL", 201, kTarget, {}).size(), 1U);
}

// RFC 9111 §4.4: Location and Content-Location, resolved against the target.
TEST(Invalidation, RelativeLocationIsResolvedAndInvalidated) {
  const HeaderList response = {{"Location", "../orders/42"},
                               {"Content-Location", "/cart/items?id=7&v=2"}};
  EXPECT_EQ(invalidation_keys("POST", 201, kTarget, response),
            (Keys{"http://shop.example/cart/items?id=7", "http://shop.example/orders/42",
                  "http://shop.example/cart/items?id=7&v=2"}));
}

// RFC 9111 §4.4: never another origin's URI (denial of service).
TEST(Invalidation, CrossOriginLocationIsIgnored_Rfc9111_4_4) {
  for (std::string_view location : {"http://other.example/cart", "https://shop.example/cart",
                                    "http://shop.example:8080/cart", "//evil.example/x"}) {
    EXPECT_EQ(invalidation_keys("PUT", 200, kTarget, {{"Location", std::string(location)}}),
              Keys{"http://shop.example/cart/items?id=7"})
        << location;
  }
  EXPECT_EQ(invalidation_keys("PUT", 200, kTarget, {{"Location", "HTTP://SHOP.example:80/x"}}),
            (Keys{"http://shop.example/cart/items?id=7", "http://shop.example/x"}));
}

TEST(Invalidation, KeysAreListedOnceAndBadLocationsSkipped) {
  const HeaderList response = {{"Location", "items?id=7"},
                               {"Content-Location", "ftp://shop.example/x"}};
  EXPECT_EQ(invalidation_keys("DELETE", 200, kTarget, response),
            Keys{"http://shop.example/cart/items?id=7"});
  EXPECT_EQ(invalidation_keys("DELETE", 200, kTarget, {{"Location", "a b"}}).size(), 1U);
}

}  // namespace
}  // namespace sumcache::daemon
