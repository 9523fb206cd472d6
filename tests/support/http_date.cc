#include "tests/support/http_date.h"

#include <array>
#include <cstdio>
#include <ctime>

namespace sumcache::testing {

namespace {

constexpr std::array<const char*, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

int month_index(const char* name) {
  for (int i = 0; i < 12; ++i) {
    if (std::string_view(kMonths[i]) == name) return i;
  }
  return -1;
}

// Fills `tm` from one of the three forms; false when none matches.
bool scan(const std::string& text, std::tm& tm) {
  char month[4] = {};
  char tail[4] = {};
  int consumed = 0;
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
  if (std::sscanf(text.c_str(), "%*3s, %2d %3s %4d %2d:%2d:%2d %3s%n", &tm.tm_mday, month,
                  &tm.tm_year, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, tail, &consumed) == 7) {
    tm.tm_year -= 1900;
  } else if (std::sscanf(text.c_str(), "%*[A-Za-z], %2d-%3s-%2d %2d:%2d:%2d %3s%n", &tm.tm_mday,
                         month, &tm.tm_year, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, tail,
                         &consumed) == 7) {
    // RFC 850's two-digit year: RFC 9110 §5.6.7 says read it as the nearest century; the
    // test origin meets such dates only from tests, which use years after 1970.
    tm.tm_year += tm.tm_year < 70 ? 100 : 0;
  } else if (std::sscanf(text.c_str(), "%*3s %3s %2d %2d:%2d:%2d %4d%n", month, &tm.tm_mday,
                         &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &tm.tm_year, &consumed) == 6) {
    tm.tm_year -= 1900;
    std::snprintf(tail, sizeof tail, "GMT");
  } else {
    return false;
  }
  tm.tm_mon = month_index(month);
  return tm.tm_mon >= 0 && std::string_view(tail) == "GMT" &&
         static_cast<std::size_t>(consumed) == text.size();
}

}  // namespace

std::string format_http_date(SysTime time) {
  const std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday],
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return buf;
}

std::optional<SysTime> parse_http_date(std::string_view text) {
  std::tm tm{};
  if (!scan(std::string(text), tm)) return std::nullopt;
  return std::chrono::system_clock::from_time_t(::timegm(&tm));
}

}  // namespace sumcache::testing
