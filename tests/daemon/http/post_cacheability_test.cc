#include "daemon/http/post_cacheability.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

constexpr std::uint64_t kLimit = 1 << 20;
const EffectiveUri kTarget = *parse_absolute_uri("http://shop.example/cart/items?id=7");

PostStoreReason check(const HeaderList& response, std::string_view method = "POST",
                      const HeaderList& request = {}, int status = 200) {
  const RequestDirectives request_cc = request_directives(request);
  const ResponseDirectives response_cc = response_directives(response);
  return post_storability({.method = method,
                           .request = request,
                           .request_directives = request_cc,
                           .status = status,
                           .response = response,
                           .response_directives = response_cc,
                           .max_object_bytes = kLimit},
                          kTarget);
}

// RFC 9110 §9.3.3: explicit freshness and a Content-Location equal to the target URI make a
// POST response reusable for a later GET. The reference resolves against the target
// (RFC 9110 §8.7), and the comparison is the cache key's (RFC 9111 §2).
TEST(PostCacheability, ContentLocationOfTheTargetWithExplicitFreshness_Rfc9110_9_3_3) {
  for (const char* location : {"/cart/items?id=7", "http://shop.example/cart/items?id=7",
                               "HTTP://SHOP.EXAMPLE:80/cart/items?id=7", "items?id=7"}) {
    EXPECT_EQ(check({{"Content-Location", location}, {"Cache-Control", "max-age=60"}}),
              PostStoreReason::storable)
        << location;
  }
  EXPECT_EQ(check({{"Content-Location", "/cart/items?id=7"}, {"Cache-Control", "s-maxage=60"}}),
            PostStoreReason::storable);
  EXPECT_EQ(check({{"Content-Location", "/cart/items?id=7"},
                   {"Expires", "Thu, 01 Jan 2099 00:00:00 GMT"}}),
            PostStoreReason::storable);
}

// RFC 9110 §9.3.3: without Content-Location naming the target, the response describes
// something else (or the result of the action), never the target's representation.
TEST(PostCacheability, ContentLocationMustBeTheTarget_Rfc9110_9_3_3) {
  const HeaderList fresh = {{"Cache-Control", "max-age=60"}};
  EXPECT_EQ(check(fresh), PostStoreReason::content_location_elsewhere);
  for (const char* location :
       {"/cart/items?id=8", "/cart/items", "http://other.example/cart/items?id=7",
        "https://shop.example/cart/items?id=7", "http://[bad", ""}) {
    HeaderList response = fresh;
    response.push_back({"Content-Location", location});
    EXPECT_EQ(check(response), PostStoreReason::content_location_elsewhere) << location;
  }
  EXPECT_EQ(check({{"Content-Location", "/cart/items?id=7"},
                   {"Content-Location", "/cart/items?id=7"},
                   {"Cache-Control", "max-age=60"}}),
            PostStoreReason::content_location_elsewhere);
}

// RFC 9110 §9.3.3: "only ... when they include explicit freshness information": no
// heuristic freshness (RFC 9111 §4.2.2), and "public" alone is none.
TEST(PostCacheability, ExplicitFreshnessIsRequired_Rfc9110_9_3_3) {
  const HeaderField location{"Content-Location", "/cart/items?id=7"};
  EXPECT_EQ(check({location}), PostStoreReason::no_explicit_freshness);
  EXPECT_EQ(check({location, {"Last-Modified", "Thu, 01 Jan 2015 00:00:00 GMT"}}),
            PostStoreReason::no_explicit_freshness);
  EXPECT_EQ(check({location, {"Cache-Control", "public"}}), PostStoreReason::no_explicit_freshness);
}

// RFC 9111 §3: everything else a GET response must meet still applies.
TEST(PostCacheability, TheRulesForAStoredGetStillApply_Rfc9111_3) {
  const HeaderField location{"Content-Location", "/cart/items?id=7"};
  EXPECT_EQ(check({location, {"Cache-Control", "max-age=60, no-store"}}),
            PostStoreReason::not_storable);
  EXPECT_EQ(check({location, {"Cache-Control", "max-age=60, private"}}),
            PostStoreReason::not_storable);
  EXPECT_EQ(check({location, {"Cache-Control", "max-age=60"}, {"Vary", "*"}}),
            PostStoreReason::not_storable);
  EXPECT_EQ(
      check({location, {"Cache-Control", "max-age=60"}}, "POST", {{"Cache-Control", "no-store"}}),
      PostStoreReason::not_storable);
  EXPECT_EQ(
      check({location, {"Cache-Control", "max-age=60"}}, "POST", {{"Authorization", "Basic eDp5"}}),
      PostStoreReason::not_storable);
  EXPECT_EQ(check({location, {"Cache-Control", "max-age=60"}}, "POST", {}, 206),
            PostStoreReason::not_storable);
}

// Only POST has this rule: other unsafe methods define no cacheable response (RFC 9110 §9.3).
TEST(PostCacheability, OtherMethodsAreNotPost_Rfc9110_9_3) {
  const HeaderList response = {{"Content-Location", "/cart/items?id=7"},
                               {"Cache-Control", "max-age=60"}};
  for (std::string_view method : {"PUT", "PATCH", "DELETE", "post", "GET"}) {
    EXPECT_EQ(check(response, method), PostStoreReason::not_post) << method;
  }
}

}  // namespace
}  // namespace sumcache::daemon
