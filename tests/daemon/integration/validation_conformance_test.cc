// Validation and conditional requests through a real sumcached and a real
// origin, in forward and reverse mode: what the cache answers itself, what it
// passes on, and what it must not do when the origin is gone.
#include "tests/daemon/integration/proxy_fixture.h"

namespace sumcache::testing {
namespace {

class Validation : public BothModes {};
INSTANTIATE_TEST_SUITE_P(Modes, Validation, kBothModes, mode_name);

// RFC 9111 §5.2.2.2: a stale must-revalidate response is not served when the
// origin cannot be reached, even where stale-if-error would allow it
// (§4.2.4); the client gets an error instead. RFC 9111 §5.5: when stale-if-error
// does serve one, no Warning is added.
TEST_P(Validation, MustRevalidateIsNotServedStaleWhenTheOriginIsGone) {
  const std::string strict = "/obj/mr?max_age=0&etag=m1&cc=must-revalidate%2C%20stale-if-error%3D600";
  const std::string lenient = "/obj/sie?max_age=0&etag=s1&cc=stale-if-error%3D600";
  ASSERT_EQ(fetch(strict).status, 200U);
  ASSERT_EQ(fetch(lenient).status, 200U);
  origin_.stop();
  const auto refused = fetch(strict);
  EXPECT_TRUE(refused.status == 502U || refused.status == 504U) << refused.status;
  const auto served = fetch(lenient);
  EXPECT_EQ(served.status, 200U);
  EXPECT_EQ(x_cache(served), "STALE_HIT");
  EXPECT_FALSE(served.header("Warning").has_value());
}

// RFC 9110 §13.1.5: If-Range without Range is ignored: the whole stored response.
TEST_P(Validation, IfRangeWithoutRangeIsIgnored) {
  const std::string path = "/obj/ifrange?max_age=60&etag=r1&size=50";
  ASSERT_EQ(fetch(path).status, 200U);
  const auto r = fetch(path, {{"If-Range", "\"other\""}});
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.body.size(), 50U);
  EXPECT_EQ(x_cache(r), "HIT");
}

// RFC 9110 §13.2.1, §15.4.5: on a request the cache cannot answer (a response
// it may not store), the client's preconditions go to the origin unchanged and
// the origin's 304 comes back to the client.
TEST_P(Validation, PreconditionsOfAMissGoUpstreamAndThe304ComesBack) {
  const std::string path = "/obj/nostore?cc=no-store&etag=n1";
  const auto r = fetch(path, {{"If-None-Match", "\"n1\""}});
  EXPECT_EQ(r.status, 304U);
  EXPECT_TRUE(r.body.empty());
  const auto log = origin_.log().entries();
  ASSERT_EQ(log.size(), 1U);
  EXPECT_EQ(find_header(log[0].headers, "If-None-Match").value_or("<none>"), "\"n1\"");
  const auto unsafe = fetch(path, {{"If-Match", "\"n1\""}});
  EXPECT_EQ(unsafe.status, 200U);
  ASSERT_EQ(origin_.log().entries().size(), 2U);
  EXPECT_EQ(find_header(origin_.log().entries()[1].headers, "If-Match").value_or("<none>"),
            "\"n1\"");
}

// RFC 9110 §15.3.7: a 206 cut from a stored 200 carries the fields the 200
// would: Date, Cache-Control, ETag, Expires, Content-Location, Vary.
TEST_P(Validation, PartialResponseFromTheStoreCarriesThe200sFields) {
  const std::string path =
      "/obj/fields206?max_age=60&etag=f1&size=100&vary=Accept-Language&expires=4000000000"
      "&content_location=/obj/fields206";
  const auto full = fetch(path, {{"Accept-Language", "en"}});
  ASSERT_EQ(full.status, 200U);
  const auto part = fetch(path, {{"Accept-Language", "en"}, {"Range", "bytes=0-9"}});
  ASSERT_EQ(part.status, 206U);
  EXPECT_EQ(x_cache(part), "HIT");
  for (const char* name :
       {"Date", "Cache-Control", "ETag", "Expires", "Content-Location", "Vary"}) {
    EXPECT_EQ(part.header(name), full.header(name)) << name;
  }
}

// RFC 9111 §4.3.3: a full response to a validation request answers the client
// and replaces the stored one. The origin takes its ETag from X-Version, so the
// same URL changes representation between the two requests.
TEST_P(Validation, AFullResponseToValidationAnswersAndReplaces) {
  const std::string path = "/obj/changed?max_age=60&etag=v1&etag_from=X-Version&size=40";
  const auto v1 = fetch(path);
  ASSERT_EQ(v1.header("ETag").value_or(""), "\"v1\"");
  const auto v2 = fetch(path, {{"Cache-Control", "no-cache"}, {"X-Version", "v2"}});
  EXPECT_EQ(v2.status, 200U);
  EXPECT_EQ(v2.header("ETag").value_or(""), "\"v2\"");
  EXPECT_NE(v2.body, v1.body);
  const auto log = origin_.log().entries();
  ASSERT_EQ(log.size(), 2U);
  EXPECT_EQ(find_header(log[1].headers, "If-None-Match").value_or("<none>"), "\"v1\"");
  const auto after = fetch(path);
  EXPECT_EQ(x_cache(after), "HIT");
  EXPECT_EQ(after.body, v2.body);
}

}  // namespace
}  // namespace sumcache::testing
