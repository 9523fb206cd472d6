// Accept-Language normalised for Vary through a real sumcached, in forward and reverse
// mode (RFC 9111 §4.1: a cache may normalise a selecting field when the semantics stay the
// same; daemon/http/accept_language.h).
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

}  // namespace
}  // namespace sumcache::testing
