#include "daemon/http/cacheability.h"

#include <gtest/gtest.h>

#include "tests/daemon/http/http_test_times.h"

namespace sumcache::daemon {
namespace {

using testing::at;
using testing::date_at;

constexpr std::uint64_t kLimit = 1 << 20;

StoreReason check(std::string_view method, const HeaderList& request, int status,
                  const HeaderList& response, std::uint64_t limit = kLimit) {
  const RequestDirectives request_cc = request_directives(request);
  const ResponseDirectives response_cc = response_directives(response);
  return storability({.method = method,
                      .request = request,
                      .request_directives = request_cc,
                      .status = status,
                      .response = response,
                      .response_directives = response_cc,
                      .max_object_bytes = limit});
}

// RFC 9111 §3 with RFC 9110 §15.1: a heuristically cacheable status suffices.
TEST(Cacheability, PlainOkIsStorable_Rfc9111_3) {
  EXPECT_EQ(check("GET", {}, 200, {}), StoreReason::storable);
  for (int status : {203, 204, 300, 301, 308, 404, 405, 410, 414, 501}) {
    EXPECT_EQ(check("GET", {}, status, {}), StoreReason::storable) << status;
  }
}

TEST(Cacheability, OnlyGetResponsesAreStored) {
  for (std::string_view method : {"HEAD", "POST", "PUT", "get", "OPTIONS"}) {
    EXPECT_EQ(check(method, {}, 200, {{"Cache-Control", "max-age=60"}}),
              StoreReason::method_not_get)
        << method;
  }
}

// RFC 9111 §3: final responses only; 206 and 304 only if understood: a 304
// never, a 206 only where the caller keeps partial responses (below).
TEST(Cacheability, InterimPartialAndNotModifiedAreNotStored) {
  EXPECT_EQ(check("GET", {}, 100, {}), StoreReason::status_not_final);
  EXPECT_EQ(check("GET", {}, 206, {{"Cache-Control", "max-age=60"}}),
            StoreReason::status_not_understood);
  EXPECT_EQ(check("GET", {}, 304, {{"Cache-Control", "max-age=60"}}),
            StoreReason::status_not_understood);
}

// RFC 9111 §3.3: a cache that keeps partial responses may store a 206; the
// other rules still apply (no-store, private, freshness), and must-understand
// then understands 206 (§5.2.2.3).
TEST(Cacheability, PartialContentIsStorableWhereKept_Rfc9111_3_3) {
  const auto partial = [](const HeaderList& response) {
    const HeaderList request{{"Range", "bytes=0-4"}};
    const RequestDirectives request_cc = request_directives(request);
    const ResponseDirectives response_cc = response_directives(response);
    return storability({.method = "GET",
                        .request = request,
                        .request_directives = request_cc,
                        .status = 206,
                        .response = response,
                        .response_directives = response_cc,
                        .max_object_bytes = kLimit,
                        .partial_allowed = true});
  };
  EXPECT_EQ(partial({{"Cache-Control", "max-age=60"}}), StoreReason::storable);
  EXPECT_EQ(partial({}), StoreReason::storable);  // 206 is heuristically cacheable
  EXPECT_EQ(partial({{"Cache-Control", "max-age=60, no-store"}}), StoreReason::no_store_response);
  EXPECT_EQ(partial({{"Cache-Control", "max-age=60, private"}}), StoreReason::private_response);
  EXPECT_EQ(partial({{"Cache-Control", "max-age=60, no-store, must-understand"}}),
            StoreReason::storable);
}

// RFC 9111 §5.2.1.5 and §5.2.2.5.
TEST(Cacheability, NoStoreInRequestOrResponsePreventsStoring) {
  EXPECT_EQ(check("GET", {{"Cache-Control", "no-store"}}, 200, {}), StoreReason::no_store_request);
  EXPECT_EQ(check("GET", {}, 200, {{"Cache-Control", "max-age=60, no-store"}}),
            StoreReason::no_store_response);
}

// RFC 9111 §5.2.2.3: must-understand overrides no-store for a status we
// understand, and refuses one we do not.
TEST(Cacheability, MustUnderstandOverridesNoStoreOnlyForKnownStatus) {
  EXPECT_EQ(check("GET", {}, 200, {{"Cache-Control", "must-understand, no-store"}}),
            StoreReason::storable);
  EXPECT_EQ(check("GET", {}, 299, {{"Cache-Control", "must-understand, no-store, max-age=9"}}),
            StoreReason::status_not_understood);
  EXPECT_EQ(check("GET", {}, 299, {{"Cache-Control", "max-age=9"}}), StoreReason::storable);
}

// RFC 9111 §5.2.2.7: a shared cache must not store a private response.
TEST(Cacheability, PrivateIsNotStoredButQualifiedPrivateIs) {
  EXPECT_EQ(check("GET", {}, 200, {{"Cache-Control", "private, max-age=60"}}),
            StoreReason::private_response);
  EXPECT_EQ(check("GET", {}, 200, {{"Cache-Control", R"(private="Set-Cookie", max-age=60)"}}),
            StoreReason::storable);
}

// RFC 9111 §3.5: a response to a request with Authorization is stored only
// with public, s-maxage or must-revalidate.
TEST(Cacheability, AuthorizationNeedsPublicSMaxageOrMustRevalidate_Rfc9111_3_5) {
  const HeaderList request = {{"Authorization", "Basic eDp5"}};
  EXPECT_EQ(check("GET", request, 200, {{"Cache-Control", "max-age=60"}}),
            StoreReason::authorization);
  EXPECT_EQ(check("GET", request, 200, {}), StoreReason::authorization);
  EXPECT_EQ(check("GET", request, 200, {{"Cache-Control", "public"}}), StoreReason::storable);
  EXPECT_EQ(check("GET", request, 200, {{"Cache-Control", "s-maxage=60"}}), StoreReason::storable);
  EXPECT_EQ(check("GET", request, 200, {{"Cache-Control", "max-age=60, must-revalidate"}}),
            StoreReason::storable);
  EXPECT_EQ(check("GET", request, 200, {{"Cache-Control", "proxy-revalidate, max-age=60"}}),
            StoreReason::authorization);
}

// RFC 9111 §4.1: a "Vary: *" response could never be reused.
TEST(Cacheability, VaryStarIsNotStored) {
  EXPECT_EQ(check("GET", {}, 200, {{"Vary", "Accept"}, {"Vary", "*"}}), StoreReason::vary_star);
  EXPECT_EQ(check("GET", {}, 200, {{"Vary", "Accept"}}), StoreReason::storable);
}

// RFC 9111 §3: a status that is not heuristically cacheable needs explicit
// freshness (Expires, max-age, s-maxage) or public.
TEST(Cacheability, OtherStatusesNeedExplicitFreshnessOrPublic) {
  EXPECT_EQ(check("GET", {}, 302, {}), StoreReason::no_freshness_info);
  EXPECT_EQ(check("GET", {}, 500, {}), StoreReason::no_freshness_info);
  EXPECT_EQ(check("GET", {}, 302, {{"Cache-Control", "max-age=60"}}), StoreReason::storable);
  EXPECT_EQ(check("GET", {}, 307, {{"Cache-Control", "s-maxage=60"}}), StoreReason::storable);
  EXPECT_EQ(check("GET", {}, 500, {{"Expires", date_at(60)}}), StoreReason::storable);
  EXPECT_EQ(check("GET", {}, 201, {{"Cache-Control", "public"}}), StoreReason::storable);
}

TEST(Cacheability, ContentLengthAboveTheLimitIsTooLarge) {
  EXPECT_EQ(check("GET", {}, 200, {{"Content-Length", "1000"}}, 999), StoreReason::too_large);
  EXPECT_EQ(check("GET", {}, 200, {{"Content-Length", "999"}}, 999), StoreReason::storable);
  EXPECT_EQ(check("GET", {}, 200, {{"Content-Length", "99999999999999999999999"}}, 999),
            StoreReason::too_large);
  EXPECT_EQ(check("GET", {}, 200, {}, 0), StoreReason::storable);  // checked while streaming
}

// Issue 27 item 6a: a body read until close under a transfer coding other
// than chunked arrives coded; a hit could not say how (the coding is
// hop-by-hop), so it is relayed and never stored.
TEST(Cacheability, ATransferCodingOtherThanChunkedIsNotStored_Rfc9112_6_3) {
  EXPECT_EQ(check("GET", {}, 200, {{"Transfer-Encoding", "gzip"}}), StoreReason::transfer_coded);
  EXPECT_EQ(check("GET", {}, 200, {{"Transfer-Encoding", "chunked, gzip"}}),
            StoreReason::transfer_coded);
  EXPECT_EQ(check("GET", {}, 200, {{"Transfer-Encoding", " Chunked "}}), StoreReason::storable);
  EXPECT_EQ(to_string(StoreReason::transfer_coded), "transfer_coded");
}

// Our choice (docs/caching.md): Set-Cookie is stored and kept with its response.
TEST(Cacheability, SetCookieIsStoredAndKept_Rfc9111_3) {
  const HeaderList response = {{"Cache-Control", "max-age=60"}, {"Set-Cookie", "id=1"}};
  EXPECT_EQ(check("GET", {}, 200, response), StoreReason::storable);
  const HeaderList stored = headers_to_store(response, response_directives(response), at(0));
  EXPECT_EQ(first_value(stored, "Set-Cookie"), "id=1");
}

// RFC 9111 §3.1: qualified no-cache and private keep the named fields out of
// the store, so a stored response never carries them.
TEST(Cacheability, QualifiedNoCacheOrPrivateKeepsTheNamedFieldsOut_Rfc9111_3_1) {
  for (std::string_view cc :
       {R"(no-cache="set-cookie", max-age=60)", R"(private="Set-Cookie, X-User", max-age=60)"}) {
    const HeaderList response = {{"Cache-Control", std::string(cc)},
                                 {"Set-Cookie", "id=1"},
                                 {"set-cookie", "b=2"},
                                 {"X-User", "u"},
                                 {"Content-Type", "text/html"}};
    const HeaderList stored = headers_to_store(response, response_directives(response), at(0));
    EXPECT_FALSE(has_field(stored, "Set-Cookie")) << cc;
    EXPECT_TRUE(has_field(stored, "Content-Type")) << cc;
  }
}

// RFC 9111 §3.1: hop-by-hop and proxy authentication fields are not stored.
TEST(Cacheability, HopByHopAndProxyAuthFieldsAreNotStored) {
  const HeaderList response = {{"Date", date_at(0)},
                               {"Connection", "X-Hop"},
                               {"X-Hop", "1"},
                               {"Transfer-Encoding", "chunked"},
                               {"Proxy-Authenticate", "Basic"},
                               {"Proxy-Authentication-Info", "x"},
                               {"ETag", R"("a")"}};
  const HeaderList expected = {{"Date", date_at(0)}, {"ETag", R"("a")"}};
  EXPECT_EQ(headers_to_store(response, {}, at(5)), expected);
}

// RFC 9110 §6.6.1: a cache adds Date to a response that lacks one.
TEST(Cacheability, MissingDateIsAddedAtResponseTime_Rfc9110_6_6_1) {
  const HeaderList stored = headers_to_store({{"ETag", R"("a")"}}, {}, at(42));
  EXPECT_EQ(first_value(stored, "Date"), date_at(42));
  const HeaderList kept = headers_to_store({{"date", date_at(1)}}, {}, at(42));
  EXPECT_EQ(count_fields(kept, "Date"), 1U);
  EXPECT_EQ(first_value(kept, "Date"), date_at(1));
}

TEST(Cacheability, ReasonsHaveNamesForLogs) {
  EXPECT_EQ(to_string(StoreReason::storable), "storable");
  EXPECT_EQ(to_string(StoreReason::authorization), "authorization");
  EXPECT_EQ(to_string(StoreReason::too_large), "too_large");
}

}  // namespace
}  // namespace sumcache::daemon
