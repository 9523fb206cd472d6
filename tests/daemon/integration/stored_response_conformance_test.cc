// What a stored response may be turned into, through a real sumcached and a
// real origin, in forward and reverse mode: preconditions and ranges apply
// only to what would otherwise be a 2xx or a 200 (RFC 9110 §13.2.1, §14.2),
// one If-Modified-Since line is a date and two are not (§13.1.3), an undated
// response is dated on the way (§6.6.1), and our Via member names the version
// a message came with (§7.6.3).
#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/http_date.h"
#include "tests/support/raw_client.h"

namespace sumcache::testing {
namespace {

class StoredResponse : public BothModes {};
INSTANTIATE_TEST_SUITE_P(Modes, StoredResponse, kBothModes, mode_name);

// RFC 9110 §13.2.1: a stored 404 whose ETag the client names is still a 404.
TEST_P(StoredResponse, PreconditionsOnAStored404AreIgnored) {
  const std::string path = "/obj/gone404?status=404&max_age=60&etag=g1&size=20";
  ASSERT_EQ(fetch(path).status, 404U);
  const auto conditional = fetch(path, {{"If-None-Match", "\"g1\""}});
  EXPECT_EQ(conditional.status, 404U);
  EXPECT_EQ(conditional.body.size(), 20U);
  EXPECT_EQ(x_cache(conditional), "HIT");
  EXPECT_EQ(origin_.log().count("/obj/gone404"), 1U);
}

// RFC 9110 §14.2: Range is evaluated only where the answer would be a 200.
TEST_P(StoredResponse, RangeOfAStored404IsTheWhole404) {
  const std::string path = "/obj/range404?status=404&max_age=60&size=100";
  const auto full = fetch(path);
  ASSERT_EQ(full.status, 404U);
  const auto ranged = fetch(path, {{"Range", "bytes=0-9"}});
  EXPECT_EQ(ranged.status, 404U);
  EXPECT_EQ(ranged.body, full.body);
  EXPECT_FALSE(ranged.header("Content-Range").has_value());
}

// RFC 9110 §13.1.3: one If-Modified-Since is evaluated; two lines are ignored.
TEST_P(StoredResponse, IfModifiedSinceOnTwoLinesIsIgnored) {
  const std::string path = "/obj/ims2?max_age=60&last_modified=1000000000";
  ASSERT_EQ(fetch(path).status, 200U);
  const std::string later = format_http_date(std::chrono::system_clock::now());
  EXPECT_EQ(fetch(path, {{"If-Modified-Since", later}}).status, 304U);
  const auto two = fetch(path, {{"If-Modified-Since", later}, {"If-Modified-Since", later}});
  EXPECT_EQ(two.status, 200U);
  EXPECT_EQ(x_cache(two), "HIT");
}

// RFC 9110 §6.6.1: a response from an origin without a clock reaches the
// client dated, on the miss that relays it and on the hit after.
TEST_P(StoredResponse, UndatedResponseIsDatedOnTheWay) {
  const std::string path = "/obj/undated?max_age=60&no_date=1";
  const auto miss = fetch(path);
  ASSERT_EQ(x_cache(miss), "MISS");
  EXPECT_TRUE(miss.header("Date").has_value());
  const auto hit = fetch(path);
  ASSERT_EQ(x_cache(hit), "HIT");
  EXPECT_TRUE(hit.header("Date").has_value());
  EXPECT_EQ(origin_.log().count("/obj/undated"), 1U);
}

// RFC 9110 §7.6.3: Via's received-protocol is the version the request came
// with: "1.0" from an HTTP/1.0 client, "1.1" from an HTTP/1.1 one.
TEST_P(StoredResponse, ViaNamesTheVersionTheRequestCameWith) {
  const std::string target =
      GetParam() == "reverse" ? "/obj/via10?size=3" : origin_url("/obj/via10?size=3");
  const auto reply =
      raw_exchange("127.0.0.1", port_, "GET " + target + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",
                   std::chrono::seconds(5));
  ASSERT_TRUE(reply.ok());
  ASSERT_FALSE(parse_responses(reply->data).empty()) << reply->data;
  fetch("/obj/via11?size=3");
  std::string via10, via11;
  for (const auto& entry : origin_.log().entries()) {
    const auto via = find_header(entry.headers, "Via").value_or("<none>");
    (entry.target.find("via10") != std::string::npos ? via10 : via11) = via;
  }
  EXPECT_EQ(via10, "1.0 test-node");
  EXPECT_EQ(via11, "1.1 test-node");
}

}  // namespace
}  // namespace sumcache::testing
