// The cache through a real sumcached and a real origin: RFC 9111 behaviour
// seen from a client, and what reached the origin, in forward and reverse mode.
#include <future>
#include <thread>

#include "tests/daemon/integration/proxy_fixture.h"

namespace sumcache::testing {
namespace {

std::string header_or(const ClientResponse& r, std::string_view name) {
  return r.header(name).value_or("<none>");
}

class Caching : public BothModes {};
INSTANTIATE_TEST_SUITE_P(Modes, Caching, kBothModes, mode_name);

TEST_P(Caching, FreshResponseIsServedFromCacheWithAge) {  // RFC 9111 §4.2, §5.1
  const auto first = fetch("/obj/a?max_age=60&size=5000");
  ASSERT_EQ(first.status, 200U);
  EXPECT_EQ(header_or(first, "X-Cache"), "MISS");
  const auto second = fetch("/obj/a?max_age=60&size=5000");
  ASSERT_EQ(second.status, 200U);
  EXPECT_EQ(header_or(second, "X-Cache"), "HIT");
  EXPECT_TRUE(second.header("Age").has_value());
  EXPECT_EQ(second.body, first.body);
  EXPECT_EQ(second.body.size(), 5000U);
  EXPECT_EQ(origin_.log().count("/obj/a"), 1U);
}

TEST_P(Caching, NoStoreAndPrivateResponsesAreNotStored) {  // RFC 9111 §3, §5.2.2.5, §5.2.2.7
  for (const char* cc : {"no-store", "private"}) {
    const std::string path = std::string("/obj/") + cc + "?cc=" + cc + "&max_age=60";
    fetch(path);
    const auto again = fetch(path);
    EXPECT_EQ(header_or(again, "X-Cache"), "MISS") << cc;
    EXPECT_EQ(origin_.log().count(std::string("/obj/") + cc), 2U) << cc;
  }
}

TEST_P(Caching, RequestNoCacheRevalidatesAndA304RefreshesTheEntry) {  // RFC 9111 §4.3, §5.2.1.4
  fetch("/obj/v?max_age=60&etag=v1");
  const auto revalidated = fetch("/obj/v?max_age=60&etag=v1", {{"Cache-Control", "no-cache"}});
  EXPECT_EQ(revalidated.status, 200U);
  EXPECT_EQ(header_or(revalidated, "X-Cache"), "REFRESH_HIT");
  const auto log = origin_.log().entries();
  ASSERT_EQ(log.size(), 2U);
  EXPECT_EQ(find_header(log[1].headers, "If-None-Match").value_or(""), "\"v1\"");
  EXPECT_EQ(header_or(fetch("/obj/v?max_age=60&etag=v1"), "X-Cache"), "HIT");
}

TEST_P(Caching, StaleEntryIsRevalidatedWithItsValidators) {  // RFC 9111 §4.3.1
  fetch("/obj/s?max_age=0&etag=s1");
  const auto second = fetch("/obj/s?max_age=0&etag=s1");
  EXPECT_EQ(header_or(second, "X-Cache"), "REFRESH_HIT");
  EXPECT_EQ(origin_.log().count("/obj/s"), 2U);
}

TEST_P(Caching, VaryKeepsVariantsApart) {  // RFC 9111 §4.1
  const std::string path = "/obj/lang?max_age=60&vary=Accept-Language";
  const auto en = fetch(path, {{"Accept-Language", "en"}});
  const auto fr = fetch(path, {{"Accept-Language", "fr"}});
  EXPECT_NE(en.body, fr.body);
  const auto en_again = fetch(path, {{"Accept-Language", "en"}});
  EXPECT_EQ(header_or(en_again, "X-Cache"), "HIT");
  EXPECT_EQ(en_again.body, en.body);
  EXPECT_EQ(header_or(fetch(path, {{"Accept-Language", "fr"}}), "X-Cache"), "HIT");
  EXPECT_EQ(origin_.log().count("/obj/lang"), 2U);
}

TEST_P(Caching, HeadIsAnsweredFromAStoredGet) {  // RFC 9110 §9.3.2
  const auto get = fetch("/obj/h?max_age=60&size=300");
  const auto head = fetch("/obj/h?max_age=60&size=300", {}, "HEAD");
  EXPECT_EQ(head.status, 200U);
  EXPECT_EQ(header_or(head, "X-Cache"), "HIT");
  EXPECT_EQ(header_or(head, "Content-Length"), "300");
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(origin_.log().count("/obj/h"), 1U);
}

TEST_P(Caching, SingleRangeOfAStoredResponseIs206) {  // RFC 9110 §14
  const auto full = fetch("/obj/r?max_age=60&size=1000");
  const auto part = fetch("/obj/r?max_age=60&size=1000", {{"Range", "bytes=10-19"}});
  EXPECT_EQ(part.status, 206U);
  EXPECT_EQ(header_or(part, "Content-Range"), "bytes 10-19/1000");
  EXPECT_EQ(part.body, full.body.substr(10, 10));
  const auto beyond = fetch("/obj/r?max_age=60&size=1000", {{"Range", "bytes=5000-"}});
  EXPECT_EQ(beyond.status, 416U);
  EXPECT_EQ(origin_.log().count("/obj/r"), 1U);
}

TEST_P(Caching, ClientConditionalIsAnsweredFromCache) {  // RFC 9111 §4.3.2
  fetch("/obj/c?max_age=60&etag=c1");
  const auto not_modified = fetch("/obj/c?max_age=60&etag=c1", {{"If-None-Match", "\"c1\""}});
  EXPECT_EQ(not_modified.status, 304U);
  EXPECT_TRUE(not_modified.body.empty());
  EXPECT_EQ(origin_.log().count("/obj/c"), 1U);
}

TEST_P(Caching, SuccessfulPostInvalidatesTheTarget) {  // RFC 9111 §4.4
  fetch("/obj/p?max_age=60");
  EXPECT_EQ(header_or(fetch("/obj/p?max_age=60"), "X-Cache"), "HIT");
  const auto post = fetch("/obj/p?max_age=60", {}, "POST", "payload");
  EXPECT_EQ(post.status, 200U);
  EXPECT_EQ(header_or(fetch("/obj/p?max_age=60"), "X-Cache"), "MISS");
}

TEST_P(Caching, OnlyIfCachedMissIs504) {  // RFC 9111 §5.2.1.7
  const auto r = fetch("/obj/none?max_age=60", {{"Cache-Control", "only-if-cached"}});
  EXPECT_EQ(r.status, 504U);
  EXPECT_EQ(origin_.log().count("/obj/none"), 0U);
}

TEST_P(Caching, ConcurrentMissesMakeOneOriginRequest) {  // collapsed forwarding
  const std::string path = "/obj/slow?max_age=60&delay_ms=400&size=2000";
  std::vector<std::future<ClientResponse>> clients;
  for (int i = 0; i < 6; ++i) {
    clients.push_back(std::async(std::launch::async, [&] { return fetch(path); }));
  }
  for (auto& c : clients) {
    const auto r = c.get();
    EXPECT_EQ(r.status, 200U);
    EXPECT_EQ(r.body.size(), 2000U);
  }
  EXPECT_EQ(origin_.log().count("/obj/slow"), 1U);
}

TEST_P(Caching, StaleIfErrorServesTheStoredResponseWhenOriginFails) {  // RFC 5861 §4
  const std::string ok = "/obj/e?max_age=0&etag=e1&cc=stale-if-error%3D600";
  fetch(ok);
  // The same key now answers 503: the status comes from the query, which is part of the key,
  // so the failure is made by stopping the origin instead.
  origin_.stop();
  const auto r = fetch(ok);
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(header_or(r, "X-Cache"), "STALE_HIT");
}

TEST_P(Caching, UnreachableOriginIs502WithAReason) {
  origin_.stop();
  const auto r = fetch("/obj/gone?max_age=60");
  EXPECT_EQ(r.status, 502U);
  EXPECT_NE(r.body.find("127.0.0.1"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace sumcache::testing
