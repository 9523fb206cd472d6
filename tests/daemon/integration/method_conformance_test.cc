// POST responses through a real sumcached, in forward and reverse mode: a POST response
// whose Content-Location is the target URI, with explicit freshness, answers later GETs of
// that URI (RFC 9110 §9.3.3); others are not stored; invalidation (RFC 9111 §4.4) still
// comes first.
#include "tests/daemon/integration/proxy_fixture.h"

namespace sumcache::testing {
namespace {

struct PostCase {
  const char* rule;      // the RFC section, and what it asks
  const char* path;      // distinct per row: rows share no cache key
  bool get_first;        // a GET response is stored before the POST
  bool get_reuses_post;  // the GET after the POST is a hit on the POST's response
};

const PostCase kPostCases[] = {
    {"RFC 9110 §9.3.3: Content-Location equal to the target and max-age: stored for GET",
     "/obj/post-stored?max_age=600&content_location=self&echo_method=1", false, true},
    {"RFC 9110 §9.3.3: Expires is explicit freshness too",
     "/obj/post-expires?expires=4102444800&content_location=self&echo_method=1", false, true},
    {"RFC 9110 §9.3.3: Content-Location naming another URI: not stored",
     "/obj/post-elsewhere?max_age=600&content_location=/obj/other&echo_method=1", false, false},
    {"RFC 9110 §9.3.3: no Content-Location: not stored",
     "/obj/post-no-location?max_age=600&echo_method=1", false, false},
    {"RFC 9110 §9.3.3: no explicit freshness (a Last-Modified heuristic is not): not stored",
     "/obj/post-heuristic?last_modified=1000000000&content_location=self&echo_method=1", false,
     false},
    {"RFC 9111 §3, §5.2.2.5: no-store on the POST response: not stored",
     "/obj/post-no-store?max_age=600&cc=no-store&content_location=self&echo_method=1", false,
     false},
    {"RFC 9111 §4.4: the stored GET response is invalidated, then the POST response stored",
     "/obj/post-replaces?max_age=600&content_location=self&echo_method=1", true, true},
    {"RFC 9213 §2.2: CDN-Cache-Control's max-age over Cache-Control's no-store: stored",
     "/obj/post-targeted?cc=no-store&content_location=self&echo_method=1"
     "&fields=CDN-Cache-Control%3A%20max-age%3D600",
     false, true},
    {"RFC 9213 §2.2: CDN-Cache-Control's no-store over Cache-Control's max-age: not stored",
     "/obj/post-targeted-no-store?max_age=600&content_location=self&echo_method=1"
     "&fields=CDN-Cache-Control%3A%20no-store",
     false, false},
};

class MethodConformance : public BothModes {};
INSTANTIATE_TEST_SUITE_P(Modes, MethodConformance, kBothModes, mode_name);

TEST_P(MethodConformance, PostResponsesWithContentLocationOfTheTarget) {
  for (const auto& c : kPostCases) {
    SCOPED_TRACE(c.rule);
    const std::string object = std::string(c.path).substr(0, std::string(c.path).find('?'));
    std::size_t origin_requests = 0;
    if (c.get_first) {
      ASSERT_EQ(fetch(c.path).status, 200U);
      const auto hit = fetch(c.path);
      EXPECT_EQ(hit.header("X-Cache").value_or(""), "HIT");
      EXPECT_EQ(hit.header("X-Request-Method").value_or(""), "GET");
      ++origin_requests;
    }
    const auto post = fetch(c.path, {{"Content-Type", "text/plain"}}, "POST", "12345");
    ASSERT_EQ(post.status, 200U);
    EXPECT_EQ(post.header("X-Request-Method").value_or(""), "POST");
    ++origin_requests;

    const auto get = fetch(c.path);
    ASSERT_EQ(get.status, 200U);
    if (c.get_reuses_post) {
      EXPECT_EQ(get.header("X-Cache").value_or(""), "HIT");
      EXPECT_EQ(get.header("X-Request-Method").value_or(""), "POST");
      EXPECT_EQ(get.body, post.body);
    } else {
      EXPECT_EQ(get.header("X-Cache").value_or(""), "MISS");
      EXPECT_EQ(get.header("X-Request-Method").value_or(""), "GET");
      ++origin_requests;
    }
    EXPECT_EQ(origin_.log().count(object), origin_requests);
  }
}

// The POST body still reaches the origin whole when its response is stored, and a HEAD is
// answered from the stored POST response too (RFC 9110 §9.3.3: "GET and HEAD").
TEST_P(MethodConformance, StoredPostResponseKeepsTheRequestBodyPathAndAnswersHead) {
  const std::string path = "/obj/post-body?max_age=600&content_location=self&echo_method=1";
  const std::string body(100'000, 'b');
  ASSERT_EQ(fetch(path, {}, "POST", body).status, 200U);
  const auto log = origin_.log().entries();
  ASSERT_EQ(log.size(), 1U);
  EXPECT_EQ(log[0].method, "POST");
  EXPECT_EQ(log[0].body_bytes, body.size());
  const auto head = fetch(path, {}, "HEAD");
  EXPECT_EQ(head.status, 200U);
  EXPECT_EQ(head.header("X-Cache").value_or(""), "HIT");
  EXPECT_EQ(head.header("X-Request-Method").value_or(""), "POST");
  EXPECT_EQ(origin_.log().count("/obj/post-body"), 1U);
}

}  // namespace
}  // namespace sumcache::testing
