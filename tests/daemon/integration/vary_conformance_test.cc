// Accept-Language normalised for Vary through a real sumcached, in forward and reverse
// mode (RFC 9111 §4.1: a cache may normalise a selecting field when the semantics stay the
// same; daemon/http/accept_language.h); and the variants of one URL capped at
// cache.max_variants_per_key, the least recently used evicted (docs/store.md, "Variants").
#include <map>

#include "tests/daemon/integration/proxy_fixture.h"

namespace sumcache::testing {
namespace {

struct VaryCase {
  const char* rule;
  const char* path;  // distinct per row: rows share no cache key
  const char* stored_with;
  const char* then;
  bool hit;
};

const VaryCase kAcceptLanguageCases[] = {
    {"RFC 4647 §2: language ranges match case-insensitively", "/obj/al-case", "EN-us, De",
     "en-US, de", true},
    {"RFC 9110 §12.4.2: order by q-value, one spelling of a qvalue", "/obj/al-qorder",
     "de;q=0.50, en", "en , de; Q=0.5", true},
    {"RFC 9110 §12.4.2: a q=0 member nothing else admits changes nothing", "/obj/al-qzero",
     "en, fr;q=0", "en", true},
    {"RFC 9110 §12.4.2: equal q-values keep their order (servers take the first)", "/obj/al-equal",
     "en, de", "de, en", false},
    {"RFC 4647 §3.3.1: a q=0 member that excludes from \"*\" stays", "/obj/al-star", "*, fr;q=0",
     "*", false},
    {"RFC 9111 §4.1: other languages are other variants", "/obj/al-other", "en", "fr", false},
};

class VaryConformance : public BothModes {};
INSTANTIATE_TEST_SUITE_P(Modes, VaryConformance, kBothModes, mode_name);

TEST_P(VaryConformance, AcceptLanguageIsMatchedInItsNormalisedForm) {
  for (const auto& c : kAcceptLanguageCases) {
    SCOPED_TRACE(c.rule);
    const std::string url = std::string(c.path) + "?max_age=600&vary=Accept-Language";
    ASSERT_EQ(fetch(url, {{"Accept-Language", c.stored_with}}).status, 200U);
    const auto again = fetch(url, {{"Accept-Language", c.then}});
    ASSERT_EQ(again.status, 200U);
    EXPECT_EQ(again.header("X-Cache").value_or(""), c.hit ? "HIT" : "MISS");
    EXPECT_EQ(origin_.log().count(c.path), c.hit ? 1U : 2U);
  }
}

class VariantCap : public ProxyTest {
 protected:
  static constexpr const char* kUrl = "/obj/flood?max_age=600&vary=User-Agent";
  ClientResponse as_agent(int i) { return fetch(kUrl, {{"User-Agent", agent(i)}}); }
  static std::string agent(int i) { return "agent-" + std::to_string(i); }
  std::map<int, std::string> bodies_;  // each agent's body from its miss
};

// Issue 27 item 4: a flood of User-Agent variants of one URL stays at the cap, the least
// recently used going, counted and logged; each remaining variant is its own HIT.
TEST_F(VariantCap, ManyUserAgentVariantsOfOneUrlStayAtTheCapLeastRecentlyUsedGoing) {
  ASSERT_TRUE(start_proxy({.cache_json = R"("max_variants_per_key": 4, )",
                           .admin_json = R"({"address": "127.0.0.1", "port": 0})"}));
  const auto miss = [&](int i) {
    const auto r = as_agent(i);
    ASSERT_EQ(r.status, 200U);
    EXPECT_EQ(x_cache(r), "MISS") << agent(i);
    bodies_[i] = r.body;
  };
  const auto hit = [&](int i) {
    const auto r = as_agent(i);
    ASSERT_EQ(r.status, 200U);
    EXPECT_EQ(x_cache(r), "HIT") << agent(i);
    EXPECT_EQ(r.body, bodies_[i]) << agent(i) << " was served another variant";
  };
  for (int i = 0; i < 4; ++i) miss(i);
  EXPECT_NE(bodies_[0], bodies_[1]);  // the origin's bodies tell the variants apart
  hit(0);                             // agent-0 is now the most recently used; agent-1 the least
  miss(4);
  miss(5);
  EXPECT_EQ(metric_value("sumcache_store_variants_evicted_total", "2"), "2");
  for (int i : {0, 3, 4, 5}) hit(i);
  EXPECT_EQ(origin_.log().count("/obj/flood"), 6U);
  miss(1);  // evicted: fetched again, and agent-0 (least recent now) goes
  EXPECT_EQ(metric_value("sumcache_store_variants_evicted_total", "3"), "3");
  for (int i = 6; i < 40; ++i) miss(i);
  EXPECT_EQ(metric_value("sumcache_store_variants_evicted_total", "37"), "37");
  EXPECT_EQ(metric_value(R"(sumcache_store_objects{tier="memory"})", "4"), "4");
  EXPECT_EQ(metric_value("sumcache_store_keys", "1"), "1");
  for (int i = 36; i < 40; ++i) hit(i);
  EXPECT_EQ(x_cache(as_agent(0)), "MISS");
  EXPECT_NE(daemon_log().find("cache.max_variants_per_key"), std::string::npos) << daemon_log();
}

}  // namespace
}  // namespace sumcache::testing
