#include "daemon/http/http_date.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

#include "tests/daemon/http/http_test_times.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;
using std::chrono::sys_seconds;
using testing::kT0;

// RFC 9110 §5.6.7's example instant: 784111777 seconds after the epoch.
constexpr sys_seconds kExample{seconds{784111777}};

TEST(HttpDate, ParsesImfFixdate_Rfc9110_5_6_7) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", kT0), kExample);
}

// RFC 9111 §4.2: local time zones must not influence the calculation: the
// process's TZ changes nothing, and a date in another zone is no HTTP-date.
TEST(HttpDate, LocalTimeZoneHasNoInfluence_Rfc9111_4_2) {
  const char* before = std::getenv("TZ");
  const std::string saved = before != nullptr ? before : "";
  ::setenv("TZ", "Asia/Tokyo", 1);
  ::tzset();
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", kT0), kExample);
  EXPECT_EQ(parse_http_date_any_case("sun, 06 nov 1994 08:49:37 gmt", kT0), kExample);
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 PST", kT0), std::nullopt);
  EXPECT_EQ(parse_http_date_any_case("Sun, 06 Nov 1994 08:49:37 JST", kT0), std::nullopt);
  if (before != nullptr) {
    ::setenv("TZ", saved.c_str(), 1);
  } else {
    ::unsetenv("TZ");
  }
  ::tzset();
}

TEST(HttpDate, ParsesObsoleteRfc850Form_Rfc9110_5_6_7) {
  // Seen from 2024, "94" is more than 50 years ahead as 2094, so it is 1994.
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", kT0), kExample);
}

TEST(HttpDate, ParsesObsoleteAsctimeForm_Rfc9110_5_6_7) {
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994", kT0), kExample);
  EXPECT_EQ(parse_http_date("Sun Nov 16 08:49:37 1994", kT0), kExample + std::chrono::days{10});
}

// RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is the
// most recent past year with those digits.
TEST(HttpDate, Rfc850TwoDigitYearIsResolvedAgainstNow) {
  const auto year_of = [](std::string_view text) {
    const auto t = parse_http_date(text, kT0);
    return t ? static_cast<int>(
                   std::chrono::year_month_day{std::chrono::floor<std::chrono::days>(*t)}.year())
             : 0;
  };
  EXPECT_EQ(year_of("Monday, 01-Jan-24 00:00:00 GMT"), 2024);
  EXPECT_EQ(year_of("Monday, 01-Jan-74 00:00:00 GMT"), 2074);  // 50 years ahead: kept
  EXPECT_EQ(year_of("Monday, 01-Jan-75 00:00:00 GMT"), 1975);  // 51 years ahead: last century
  EXPECT_EQ(year_of("Monday, 01-Jan-99 00:00:00 GMT"), 1999);
}

TEST(HttpDate, ToleratesSurroundingWhitespaceAndLeapSecond) {
  EXPECT_EQ(parse_http_date("  Sun, 06 Nov 1994 08:49:37 GMT\t", kT0), kExample);
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:60 GMT", kT0), kExample + seconds{23});
}

// RFC 9110 §5.6.7: invalid dates are not dates; RFC 9111 §5.3 then treats an
// Expires holding one as already expired.
TEST(HttpDate, RejectsInvalidDates) {
  for (std::string_view bad : {"", "0", "-1", "now", "Sun, 06 Nov 1994 08:49:37 UTC",
                               "Sun, 06 Nov 1994 08:49:37", "sun, 06 Nov 1994 08:49:37 GMT",
                               "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
                               "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 30 Feb 1994 08:49:37 GMT",
                               "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
                               "Sun, 06 Nov 1994 08:49:37 GMT x", "Sund, 06 Nov 1994 08:49:37 GMT",
                               "Sun Nov 6 08:49:37 1994", "Sunday, 06-Nov-1994 08:49:37 GMT"}) {
    EXPECT_FALSE(parse_http_date(bad, kT0).has_value()) << bad;
  }
}

// RFC 9110 §5.6.7 is case-sensitive; for response dates we accept names in
// any case, in all three forms, since the instant meant is unambiguous.
TEST(HttpDate, AnyCaseAcceptsWrongCaseNames_Rfc9110_5_6_7) {
  for (std::string_view sloppy : {"SUN, 06 Nov 1994 08:49:37 GMT", "Sun, 06 NOV 1994 08:49:37 GMT",
                                  "Sun, 06 Nov 1994 08:49:37 gMT", "sun, 06 nov 1994 08:49:37 gmt",
                                  "SUNDAY, 06-nOV-94 08:49:37 Gmt", "sUN NOV  6 08:49:37 1994"}) {
    EXPECT_EQ(parse_http_date_any_case(sloppy, kT0), kExample) << sloppy;
    EXPECT_FALSE(parse_http_date(sloppy, kT0).has_value()) << sloppy;
  }
  EXPECT_EQ(parse_http_date_any_case("Sun, 06 Nov 1994 08:49:37 GMT", kT0), kExample);
}

// RFC 9111 §5.3: what is really invalid stays invalid (and an Expires holding
// it in the past): only the case of names is forgiven.
TEST(HttpDate, AnyCaseStillRejectsInvalidDates_Rfc9111_5_3) {
  for (std::string_view bad :
       {"Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 50 02:01:18 GMT",
        "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT",
        "Thu, 18-Aug-2050 02:01:18 GMT", "Thu, 18 Aug 2050 02.01.18 GMT",
        "Thu, 18 Aug 2050 2:01:18 GMT", "Thx, 18 Aug 2050 02:01:18 GMT",
        "Thu, 18 Agu 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 GMTX", "0", ""}) {
    EXPECT_FALSE(parse_http_date_any_case(bad, kT0).has_value()) << bad;
  }
}

TEST(HttpDate, FormatsImfFixdateThatParsesBack) {
  EXPECT_EQ(format_http_date(kExample), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(format_http_date(sys_seconds{}), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(format_http_date(kT0), "Fri, 01 Mar 2024 00:00:00 GMT");
  for (std::int64_t offset : {0LL, 1LL, 86399LL, 31'622'400LL, 1'000'000'007LL}) {
    const sys_seconds t = kT0 + seconds{offset};
    EXPECT_EQ(parse_http_date(format_http_date(t), kT0), t) << offset;
  }
}

}  // namespace
}  // namespace sumcache::daemon
