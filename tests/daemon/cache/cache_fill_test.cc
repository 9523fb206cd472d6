#include "daemon/cache/cache_fill.h"

#include <gtest/gtest.h>

#include "daemon/cache/cached_meta.h"
#include "daemon/cache/stored_head.h"
#include "daemon/http/cacheability.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;

const std::chrono::sys_seconds kNow{seconds(1'700'000'000)};

ResponseFacts facts(HeaderList fields, int status = 200) {
  ResponseFacts f{status, "OK", std::move(fields), {}, {kNow - seconds(1), kNow}};
  f.directives = response_directives(f.fields);
  return f;
}

// RFC 9111 §3.1 and RFC 9110 §7.6: what a hit will send, minus what is per
// response (Age, X-Cache) or per connection, plus our Via and an exact length.
TEST(CacheFill, StoredHeadKeepsEndToEndFieldsAndAddsViaAndLength_Rfc9111_3_1) {
  const auto [head, meta] = stored_head_and_meta(facts({{"Date", "Tue, 14 Nov 2023 22:13:19 GMT"},
                                                        {"Cache-Control", "max-age=60"},
                                                        {"Connection", "keep-alive, X-Hop"},
                                                        {"X-Hop", "1"},
                                                        {"Keep-Alive", "timeout=5"},
                                                        {"Transfer-Encoding", "chunked"},
                                                        {"Age", "3"},
                                                        {"X-Cache", "HIT"},
                                                        {"Content-Length", "999"},
                                                        {"Via", "1.0 origin-side"},
                                                        {"ETag", "\"v1\""}}),
                                                 5, "1.1 cache-a", HeuristicPolicy{});
  const StoredHead stored = parse_stored_head(head);
  EXPECT_EQ(stored.status_line, "HTTP/1.1 200 OK");
  const HeaderList expected = {{"Date", "Tue, 14 Nov 2023 22:13:19 GMT"},
                               {"Cache-Control", "max-age=60"},
                               {"ETag", "\"v1\""},
                               {"Via", "1.0 origin-side, 1.1 cache-a"},
                               {"Content-Length", "5"}};
  EXPECT_EQ(stored.fields, expected);

  const auto decoded = decode_meta(meta);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->status, 200);
  EXPECT_EQ(decoded->freshness.freshness_lifetime, seconds(60));
  EXPECT_TRUE(decoded->freshness.has_validator);
  EXPECT_EQ(decoded->directives.max_age, seconds(60));
}

// The tag field (cache.tag_header) goes last, so a hit can leave it out.
TEST(CacheFill, TheTagFieldIsStoredLast) {
  const auto [head, meta] =
      stored_head_and_meta(facts({{"Surrogate-Key", "a b"}, {"Cache-Control", "max-age=60"}}), 0,
                           "1.1 cache-a", HeuristicPolicy{}, "Surrogate-Key");
  const StoredHead stored = parse_stored_head(head);
  ASSERT_FALSE(stored.fields.empty());
  EXPECT_EQ(stored.fields.back(), (HeaderField{"Surrogate-Key", "a b"}));
}

// RFC 9111 §3 and §4.1: a storable response is kept under the values of the
// request fields its Vary names; one that may not be stored has no variant.
TEST(CacheFill, FillVariantIsTheVaryKeyOfAStorableResponse_Rfc9111_4_1) {
  const HeaderList request = {{"Accept-Encoding", "gzip"}, {"Accept-Language", "fr"}};
  const RequestDirectives plain;
  const auto variant = fill_variant(
      request, plain, facts({{"Cache-Control", "max-age=60"}, {"Vary", "Accept-Encoding"}}), 1024);
  ASSERT_TRUE(variant);
  EXPECT_NE(variant->find("gzip"), std::string::npos);
  EXPECT_EQ(variant->find("fr"), std::string::npos);
  EXPECT_EQ(fill_variant(request, plain, facts({{"Cache-Control", "max-age=60"}}), 1024), "");

  // Not storable: no-store, Vary: *, over the size limit, no freshness information.
  EXPECT_EQ(fill_variant(request, plain, facts({{"Cache-Control", "no-store, max-age=60"}}), 1024),
            std::nullopt);
  EXPECT_EQ(
      fill_variant(request, plain, facts({{"Cache-Control", "max-age=60"}, {"Vary", "*"}}), 1024),
      std::nullopt);
  EXPECT_EQ(
      fill_variant(request, plain,
                   facts({{"Cache-Control", "max-age=60"}, {"Content-Length", "1025"}}), 1024),
      std::nullopt);
  EXPECT_EQ(fill_variant(request, plain, facts({}, 418), 1024), std::nullopt);
  RequestDirectives no_store;
  no_store.no_store = true;
  EXPECT_EQ(fill_variant(request, no_store, facts({{"Cache-Control", "max-age=60"}}), 1024),
            std::nullopt);
}

// RFC 9111 §4.1: a 304 that changes Vary does not freshen the stored
// variant, which was matched on the old field list; one that repeats it does.
TEST(CacheFill, NotModifiedThatChangesVaryRefreshesNothing_Rfc9111_4_1) {
  const ResponseFacts stored_facts = facts({{"Date", "Tue, 14 Nov 2023 22:13:19 GMT"},
                                            {"Cache-Control", "max-age=60"},
                                            {"ETag", "\"v1\""},
                                            {"Vary", "Accept-Language"}});
  const auto [head, meta_bytes] = stored_head_and_meta(stored_facts, 5, "1.1 cache-a", {});
  const auto meta = decode_meta(meta_bytes);
  ASSERT_TRUE(meta.has_value());
  const ExchangeTimes times{kNow, kNow};
  EXPECT_TRUE(refreshed_head_and_meta(head, *meta,
                                      {{"ETag", "\"v1\""}, {"Vary", "Accept-Language"}}, times, {}, {})
                  .has_value());
  EXPECT_TRUE(refreshed_head_and_meta(head, *meta, {{"ETag", "\"v1\""}}, times, {}, {}).has_value());
  EXPECT_FALSE(refreshed_head_and_meta(head, *meta,
                                       {{"ETag", "\"v1\""}, {"Vary", "Accept-Encoding"}}, times, {}, {})
                   .has_value());
}

}  // namespace
}  // namespace sumcache::daemon
