// Targeted cache control (RFC 9213), tolerant Expires parsing (RFC 9110
// §5.6.7, RFC 9111 §5.3) and If-Modified-Since against a stored Date
// (RFC 9111 §4.3.2) through a real sumcached and a real origin, in forward and
// reverse mode. Each row stores a response whose fields the origin sends as
// given, asks again, and checks whether the second answer came from the store
// and that the targeted fields reached the client as the origin sent them.
// Freshness is decided with Age instead of waiting: a response whose Age is
// beyond a lifetime is stale at once (RFC 9111 §4.2.3).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <string>
#include <vector>

#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/http_date.h"
#include "tests/support/request_target.h"

namespace sumcache::testing {
namespace {

enum class Second {
  hit,          // from the store, fresh
  fetched,      // from the origin (a miss or a refresh)
  stale_first,  // from the store, stale, then revalidated in the background
};

struct Row {
  const char* name;    // the path segment: every row has its own key
  const char* rule;    // the RFC section the row checks
  std::string fields;  // response fields, "Name: value" lines joined by '\n'
  Second second;       // how the second request is answered
};

std::string header_or(const ClientResponse& r, std::string_view name) {
  return r.header(name).value_or("<none>");
}

// Each "Name: value" line of `fields` whose name is in `names`.
std::vector<std::pair<std::string, std::string>> lines_named(
    const std::string& fields, const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> lines;
  std::string_view rest = fields;
  while (!rest.empty()) {
    const auto newline = rest.find('\n');
    const std::string_view line = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
    const auto colon = line.find(':');
    const std::string name(line.substr(0, colon));
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      lines.emplace_back(name, std::string(line.substr(colon + 2)));
    }
  }
  return lines;
}

const std::vector<std::string> kCdn{"CDN-Cache-Control"};

// RFC 9213 with the default cache.targeted_fields, ["CDN-Cache-Control"].
const std::vector<Row>& targeted_rows() {
  static const std::vector<Row> rows = {
      {"cdn-max-age", "RFC 9213 §2.2", "CDN-Cache-Control: max-age=3600", Second::hit},
      {"cdn-max-age-2-31", "RFC 9213 §2.1, RFC 9111 §1.2.2",
       "CDN-Cache-Control: max-age=2147483648", Second::hit},
      {"cdn-max-age-11-digits", "RFC 9213 §2.1, RFC 9111 §1.2.2",
       "CDN-Cache-Control: max-age=99999999999", Second::hit},
      {"cdn-max-age-below-age", "RFC 9213 §2.2, RFC 9111 §4.2.3",
       "CDN-Cache-Control: max-age=3600\nAge: 7200", Second::fetched},
      {"cdn-space-before-equals", "RFC 9213 §2.2, RFC 8941 §4.2.2",
       "Cache-Control: max-age=1\nCDN-Cache-Control: max-age =100\nAge: 10", Second::fetched},
      {"cdn-space-after-equals", "RFC 9213 §2.2, RFC 8941 §4.2.2",
       "Cache-Control: max-age=1\nCDN-Cache-Control: max-age= 100\nAge: 10", Second::fetched},
      {"cdn-upper-case-key", "RFC 9213 §2.2, RFC 8941 §3.2 (keys are lower case)",
       "Cache-Control: max-age=1\nCDN-Cache-Control: MaX-aGe=3600\nAge: 10", Second::fetched},
      {"cdn-max-age-0", "RFC 9213 §2.2", "CDN-Cache-Control: max-age=0", Second::fetched},
      {"cdn-extension", "RFC 9213 §2.1, RFC 9111 §5.2.3", "CDN-Cache-Control: foobar, max-age=3600",
       Second::hit},
      {"cdn-parameters", "RFC 9213 §2.1", "CDN-Cache-Control: max-age=3600;a=1", Second::hit},
      {"cdn-past-expires", "RFC 9213 §2.2 (Expires ignored)",
       "CDN-Cache-Control: max-age=3600\nExpires: Thu, 01 Jan 2015 00:00:00 GMT", Second::hit},
      {"cdn-invalid-expires", "RFC 9213 §2.2 (Expires ignored)",
       "CDN-Cache-Control: max-age=3600\nExpires: 0", Second::hit},
      {"cdn-max-age-0-future-expires", "RFC 9213 §2.2 (Expires ignored)",
       "CDN-Cache-Control: max-age=0\nExpires: Thu, 18 Aug 2050 02:01:18 GMT", Second::fetched},
      {"cdn-only-unknown-future-expires", "RFC 9213 §2.2 (Expires ignored)",
       "CDN-Cache-Control: none\nExpires: Thu, 18 Aug 2050 02:01:18 GMT", Second::fetched},
      {"cdn-long-over-short-cc", "RFC 9213 §2.2 (Cache-Control ignored)",
       "Cache-Control: max-age=50\nCDN-Cache-Control: max-age=3600\nAge: 100", Second::hit},
      {"cdn-short-over-long-cc", "RFC 9213 §2.2 (Cache-Control ignored)",
       "Cache-Control: max-age=3600\nCDN-Cache-Control: max-age=50\nAge: 100", Second::fetched},
      {"cdn-short-over-s-maxage", "RFC 9213 §2.2 (Cache-Control ignored)",
       "Cache-Control: s-maxage=3600\nCDN-Cache-Control: max-age=50\nAge: 100", Second::fetched},
      {"cdn-private", "RFC 9213 §2.1 private, RFC 9111 §5.2.2.7",
       "CDN-Cache-Control: private\nCache-Control: max-age=10000\n"
       "Expires: Thu, 18 Aug 2050 02:01:18 GMT",
       Second::fetched},
      {"cdn-no-cache", "RFC 9213 §2.1 no-cache, RFC 9111 §5.2.2.4",
       "CDN-Cache-Control: no-cache\nCache-Control: max-age=10000\n"
       "Expires: Thu, 18 Aug 2050 02:01:18 GMT",
       Second::fetched},
      {"cdn-no-store", "RFC 9213 §2.1 no-store, RFC 9111 §5.2.2.5",
       "Cache-Control: max-age=10000\nCDN-Cache-Control: no-store\n"
       "Expires: Thu, 18 Aug 2050 02:01:18 GMT",
       Second::fetched},
      {"cdn-must-revalidate-stale", "RFC 9213 §2.1 must-revalidate, RFC 9111 §4.2.4",
       "CDN-Cache-Control: max-age=1, must-revalidate, stale-while-revalidate=3600\nAge: 10",
       Second::fetched},
      {"cdn-stale-while-revalidate", "RFC 9213 §2.1, RFC 5861 §3",
       "CDN-Cache-Control: max-age=1, stale-while-revalidate=3600\nAge: 10", Second::stale_first},
      {"cdn-fresh-over-cc-no-store", "RFC 9213 §2.2 (Cache-Control ignored)",
       "Cache-Control: no-store\nCDN-Cache-Control: max-age=10000", Second::hit},
      {"cdn-invalid-unknown-type", "RFC 9213 §2.2 (invalid field ignored)",
       "CDN-Cache-Control: max-age=10000, &&&&&\nCache-Control: no-store", Second::fetched},
      {"cdn-invalid-wrong-type", "RFC 9213 §2.1 (wrong type: field ignored)",
       "CDN-Cache-Control: max-age=\"10000\"\nCache-Control: no-store", Second::fetched},
      {"cdn-invalid-falls-back-to-cc", "RFC 9213 §2.2 (fallback to Cache-Control)",
       "CDN-Cache-Control: max-age=\"1\"\nCache-Control: max-age=3600", Second::hit},
      {"cdn-empty-falls-back-to-cc", "RFC 9213 §2.2 (empty field ignored)",
       "CDN-Cache-Control: \nCache-Control: max-age=3600", Second::hit},
      {"cdn-forwarded-as-received", "RFC 9213 §2.2 (nothing stripped)",
       "Cache-Control: max-age=10000\nCDN-Cache-Control: foo\n"
       "Expires: Thu, 18 Aug 2050 02:01:18 GMT",
       Second::fetched},
      {"cdn-unlisted-field-ignored", "RFC 9213 §2.2 (fields not on the list change nothing)",
       "Cache-Control: max-age=3600\nOther-Cache-Control: no-store", Second::hit},
  };
  return rows;
}

// RFC 9110 §5.6.7 read tolerantly (wrong-case names); RFC 9111 §5.3: an
// invalid Expires is in the past, so the response is stale at once.
const std::vector<Row>& expires_rows() {
  static const std::vector<Row> rows = {
      {"expires-exact", "RFC 9111 §4.2.1", "Expires: Thu, 18 Aug 2050 02:01:18 GMT", Second::hit},
      {"expires-upper-weekday", "RFC 9110 §5.6.7 (tolerated)",
       "Expires: THU, 18 Aug 2050 02:01:18 GMT", Second::hit},
      {"expires-upper-month", "RFC 9110 §5.6.7 (tolerated)",
       "Expires: Thu, 18 AUG 2050 02:01:18 GMT", Second::hit},
      {"expires-mixed-gmt", "RFC 9110 §5.6.7 (tolerated)", "Expires: Thu, 18 Aug 2050 02:01:18 gMT",
       Second::hit},
      {"expires-rfc850-lower", "RFC 9110 §5.6.7 (tolerated)",
       "Expires: thursday, 18-aug-50 02:01:18 gmt", Second::hit},
      {"expires-utc", "RFC 9111 §5.3", "Expires: Thu, 18 Aug 2050 02:01:18 UTC", Second::fetched},
      {"expires-two-digit-year", "RFC 9111 §5.3", "Expires: Thu, 18 Aug 50 02:01:18 GMT",
       Second::fetched},
      {"expires-no-comma", "RFC 9111 §5.3", "Expires: Thu 18 Aug 2050 02:01:18 GMT",
       Second::fetched},
      {"expires-double-spaces", "RFC 9111 §5.3", "Expires: Thu, 18  Aug  2050 02:01:18 GMT",
       Second::fetched},
      {"expires-date-dashes", "RFC 9111 §5.3", "Expires: Thu, 18-Aug-2050 02:01:18 GMT",
       Second::fetched},
      {"expires-time-periods", "RFC 9111 §5.3", "Expires: Thu, 18 Aug 2050 02.01.18 GMT",
       Second::fetched},
      {"expires-one-digit-hour", "RFC 9111 §5.3", "Expires: Thu, 18 Aug 2050 2:01:18 GMT",
       Second::fetched},
  };
  return rows;
}

// Runs rows: every suite below derives from it.
class TargetedRows : public BothModes {
 protected:
  // The row's two requests, and what each must show.
  void run_row(const Row& row, const std::vector<std::string>& targeted) {
    SCOPED_TRACE(std::string(row.name) + " (" + row.rule + ")");
    const std::string path = std::string("/obj/") + row.name;
    const std::string target = path + "?size=100&fields=" + percent_encode(row.fields);
    const ClientResponse first = fetch(target);
    ASSERT_EQ(first.status, 200U);
    const ClientResponse second = fetch(target);
    ASSERT_EQ(second.status, 200U);
    EXPECT_EQ(second.body, first.body);
    const std::string result = header_or(second, "X-Cache");
    switch (row.second) {
      case Second::hit:
        EXPECT_EQ(result, "HIT");
        EXPECT_EQ(origin_.log().count(path), 1U);
        break;
      case Second::fetched:
        EXPECT_TRUE(result == "MISS" || result == "REFRESH_MISS") << result;
        EXPECT_EQ(origin_.log().count(path), 2U);
        break;
      case Second::stale_first:
        EXPECT_EQ(result, "STALE_HIT");
        EXPECT_TRUE(origin_.log().wait_for_count(path, 2, std::chrono::seconds{5}));
        break;
    }
    // RFC 9213 §2.2: a cache strips nothing; targeted fields reach the client
    // as sent, from the origin and from the store alike.
    for (const auto& [name, value] : lines_named(row.fields, targeted)) {
      EXPECT_EQ(header_or(first, name), value) << name;
      EXPECT_EQ(header_or(second, name), value) << name;
    }
  }
};

class TargetedConformance : public TargetedRows {};
INSTANTIATE_TEST_SUITE_P(Modes, TargetedConformance, kBothModes, mode_name);

TEST_P(TargetedConformance, CdnCacheControlRows) {
  for (const Row& row : targeted_rows()) run_row(row, kCdn);
}

TEST_P(TargetedConformance, ExpiresParsingRows) {
  for (const Row& row : expires_rows()) run_row(row, kCdn);
}

// RFC 9213 §2.1: a list of fields in order of precedence
// (cache.targeted_fields).
class TargetedListConformance : public TargetedRows {
 protected:
  ProxyOptions extra_options() const override {
    return {.cache_json = R"("targeted_fields": ["Sumcache-Cache-Control", "CDN-Cache-Control"],)"};
  }
};
INSTANTIATE_TEST_SUITE_P(Modes, TargetedListConformance, kBothModes, mode_name);

TEST_P(TargetedListConformance, FirstValidFieldOfTheListWins) {
  const std::vector<std::string> both{"Sumcache-Cache-Control", "CDN-Cache-Control"};
  const std::vector<Row> rows = {
      {"list-first-wins", "RFC 9213 §2.2 (first in list order)",
       "CDN-Cache-Control: max-age=0\nSumcache-Cache-Control: max-age=3600", Second::hit},
      {"list-first-wins-short", "RFC 9213 §2.2 (first in list order)",
       "CDN-Cache-Control: max-age=3600\nSumcache-Cache-Control: max-age=0", Second::fetched},
      {"list-invalid-first-skipped", "RFC 9213 §2.2 (the first valid one)",
       "CDN-Cache-Control: max-age=3600\nSumcache-Cache-Control: max-age=(", Second::hit},
      {"list-second-alone", "RFC 9213 §2.2",
       "Cache-Control: no-store\nCDN-Cache-Control: max-age=3600", Second::hit},
  };
  for (const Row& row : rows) run_row(row, both);
}

// An empty list turns targeted cache control off: Cache-Control decides.
class TargetedOffConformance : public TargetedRows {
 protected:
  ProxyOptions extra_options() const override {
    return {.cache_json = R"("targeted_fields": [],)"};
  }
};
INSTANTIATE_TEST_SUITE_P(Modes, TargetedOffConformance, kBothModes, mode_name);

TEST_P(TargetedOffConformance, CdnCacheControlIsIgnored) {
  const std::vector<Row> rows = {
      {"off-cc-no-store", "RFC 9213 §2.2 (not on the list)",
       "Cache-Control: no-store\nCDN-Cache-Control: max-age=3600", Second::fetched},
      {"off-cc-max-age", "RFC 9213 §2.2 (not on the list)",
       "Cache-Control: max-age=3600\nCDN-Cache-Control: no-store", Second::hit},
  };
  for (const Row& row : rows) run_row(row, {"CDN-Cache-Control"});
}

// An invalid targeted field is ignored (RFC 9213 §2.2), and since that is
// usually an origin's typo it is counted and logged (invalid_targeted_field.h).
class TargetedInvalidCounted : public TargetedRows {
 protected:
  ProxyOptions extra_options() const override {
    return {.admin_json = R"({"address": "127.0.0.1", "port": 0})"};
  }

  std::string wait_for_invalid(const std::string& want) {
    return metric_value("sumcache_targeted_fields_invalid_total", want);
  }
};
INSTANTIATE_TEST_SUITE_P(Modes, TargetedInvalidCounted, kBothModes, mode_name);

TEST_P(TargetedInvalidCounted, AnInvalidFieldIsCountedAndLogged) {
  run_row({"invalid-counted", "RFC 9213 §2.2 (invalid field ignored)",
           "CDN-Cache-Control: MaX-aGe=3600\nCache-Control: max-age=3600", Second::hit},
          kCdn);
  // Counted once: the second answer came from the store, not from the origin.
  EXPECT_EQ(wait_for_invalid("1"), "1");
  EXPECT_NE(daemon_log().find("ignored CDN-Cache-Control of "), std::string::npos) << daemon_log();
  // A valid field, or an empty one (RFC 9213 §2.2 ignores it, it is no typo), is not counted.
  run_row({"valid-not-counted", "RFC 9213 §2.2", "CDN-Cache-Control: max-age=3600", Second::hit},
          kCdn);
  run_row({"empty-not-counted", "RFC 9213 §2.2", "CDN-Cache-Control: \nCache-Control: max-age=3600",
           Second::hit},
          kCdn);
  EXPECT_EQ(wait_for_invalid("1"), "1");
}

// RFC 9111 §4.3.2: If-Modified-Since on a fresh stored response without
// Last-Modified is evaluated against its Date (RFC 9110 §13.1.3: 304 when
// the date is not later than the one the client gives), from the store.
struct ImsRow {
  const char* name;
  const char* rule;
  std::chrono::seconds since_date;  // If-Modified-Since = stored Date + this
  bool any_case;                    // the IMS written in upper case
  unsigned status;
};

TEST_P(TargetedConformance, IfModifiedSinceAgainstStoredDateRows) {
  const std::vector<ImsRow> rows = {
      {"ims-equal-date", "RFC 9111 §4.3.2, RFC 9110 §13.1.3", std::chrono::seconds{0}, false, 304},
      {"ims-before-date", "RFC 9111 §4.3.2, RFC 9110 §13.1.3", std::chrono::seconds{-1}, false,
       200},
      {"ims-long-before-date", "RFC 9111 §4.3.2, RFC 9110 §13.1.3", std::chrono::seconds{-3000},
       false, 200},
      {"ims-wrong-case", "RFC 9110 §13.1.3 (not an HTTP-date: ignored)", std::chrono::seconds{0},
       true, 200},
  };
  for (const ImsRow& row : rows) {
    SCOPED_TRACE(std::string(row.name) + " (" + row.rule + ")");
    const std::string path = std::string("/obj/") + row.name;
    const ClientResponse first = fetch(path + "?max_age=3600");
    ASSERT_EQ(first.status, 200U);
    ASSERT_FALSE(first.header("Last-Modified").has_value());
    const auto date = parse_http_date(header_or(first, "Date"));
    ASSERT_TRUE(date.has_value());
    std::string since = format_http_date(*date + row.since_date);
    if (row.any_case) {
      for (char& c : since) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    const ClientResponse second = fetch(path + "?max_age=3600", {{"If-Modified-Since", since}});
    EXPECT_EQ(second.status, row.status) << since;
    EXPECT_EQ(origin_.log().count(path), 1U);
    if (row.status == 304) {
      EXPECT_TRUE(second.body.empty());
      EXPECT_EQ(header_or(second, "Date"), header_or(first, "Date"));
    } else {
      EXPECT_EQ(second.body, first.body);
    }
  }
}

}  // namespace
}  // namespace sumcache::testing
