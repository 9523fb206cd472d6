#include "daemon/http/http_date.h"

#include <array>
#include <cstdio>

#include "daemon/http/field_value.h"

namespace sumcache::daemon {
namespace {

using std::chrono::sys_seconds;

constexpr std::array<std::string_view, 7> kDayNames = {"Sun", "Mon", "Tue", "Wed",
                                                       "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 7> kLongDayNames = {
    "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 12> kMonthNames = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

struct Fields {
  int year = 0;
  unsigned month = 0;  // 1..12
  unsigned day = 0;
  int hour = 0, minute = 0, second = 0;
};

// A cursor over the date text; every read checks bounds and fails closed.
// Names (day, month, "GMT") match exactly or, with any_case, in any letter
// case; punctuation, digits and spaces always match exactly.
class Cursor {
 public:
  Cursor(std::string_view text, bool any_case) : text_(text), any_case_(any_case) {}

  bool literal(std::string_view s) {
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  bool name(std::string_view s) {
    const std::string_view here = text_.substr(pos_, s.size());
    if (any_case_ ? !iequals(here, s) : here != s) return false;
    pos_ += s.size();
    return true;
  }
  // Exactly `width` digits.
  bool digits(int width, int& out) {
    out = 0;
    for (int i = 0; i < width; ++i, ++pos_) {
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') return false;
      out = out * 10 + (text_[pos_] - '0');
    }
    return true;
  }
  template <std::size_t N>
  bool one_of(const std::array<std::string_view, N>& names, unsigned& index) {
    for (unsigned i = 0; i < N; ++i) {
      if (name(names[i])) {
        index = i;
        return true;
      }
    }
    return false;
  }
  bool month(unsigned& out) {
    unsigned index = 0;
    if (!one_of(kMonthNames, index)) return false;
    out = index + 1;
    return true;
  }
  // time-of-day = hour ":" minute ":" second
  bool time(Fields& f) {
    return digits(2, f.hour) && literal(":") && digits(2, f.minute) && literal(":") &&
           digits(2, f.second);
  }
  bool at_end() const { return pos_ == text_.size(); }

 private:
  std::string_view text_;
  bool any_case_;
  std::size_t pos_ = 0;
};

// "Sun, 06 Nov 1994 08:49:37 GMT"
bool parse_imf_fixdate(std::string_view text, bool any_case, Fields& f) {
  Cursor c(text, any_case);
  unsigned ignored = 0;
  int day = 0;
  bool ok = c.one_of(kDayNames, ignored) && c.literal(", ") && c.digits(2, day) && c.literal(" ") &&
            c.month(f.month) && c.literal(" ") && c.digits(4, f.year) && c.literal(" ") &&
            c.time(f) && c.literal(" ") && c.name("GMT") && c.at_end();
  f.day = static_cast<unsigned>(day);
  return ok;
}

// "Sunday, 06-Nov-94 08:49:37 GMT"; the year is completed by the caller.
bool parse_rfc850(std::string_view text, bool any_case, Fields& f) {
  Cursor c(text, any_case);
  unsigned ignored = 0;
  int day = 0;
  bool ok = c.one_of(kLongDayNames, ignored) && c.literal(", ") && c.digits(2, day) &&
            c.literal("-") && c.month(f.month) && c.literal("-") && c.digits(2, f.year) &&
            c.literal(" ") && c.time(f) && c.literal(" ") && c.name("GMT") && c.at_end();
  f.day = static_cast<unsigned>(day);
  return ok;
}

// "Sun Nov  6 08:49:37 1994": the day is two digits or SP and one digit.
bool parse_asctime(std::string_view text, bool any_case, Fields& f) {
  Cursor c(text, any_case);
  unsigned ignored = 0;
  int day = 0;
  if (!(c.one_of(kDayNames, ignored) && c.literal(" ") && c.month(f.month) && c.literal(" ")))
    return false;
  if (!(c.literal(" ") ? c.digits(1, day) : c.digits(2, day))) return false;
  f.day = static_cast<unsigned>(day);
  return c.literal(" ") && c.time(f) && c.literal(" ") && c.digits(4, f.year) && c.at_end();
}

// RFC 9110 §5.6.7: a two-digit year more than 50 years in the future belongs
// to the previous century; one more than 50 years in the past to the next.
int complete_two_digit_year(int yy, sys_seconds now) {
  const std::chrono::year_month_day today{std::chrono::floor<std::chrono::days>(now)};
  const int current = static_cast<int>(today.year());
  int year = current - current % 100 + yy;
  if (year > current + 50) year -= 100;
  if (year < current - 50) year += 100;
  return year;
}

std::optional<sys_seconds> to_time(const Fields& f) {
  const std::chrono::year_month_day date{std::chrono::year{f.year}, std::chrono::month{f.month},
                                         std::chrono::day{f.day}};
  // second 60 is a leap second (RFC 9110 §5.6.7); it lands on the next minute.
  if (!date.ok() || f.hour > 23 || f.minute > 59 || f.second > 60) return std::nullopt;
  return sys_seconds{std::chrono::sys_days{date}} + std::chrono::hours{f.hour} +
         std::chrono::minutes{f.minute} + std::chrono::seconds{f.second};
}

std::optional<sys_seconds> parse(std::string_view text, sys_seconds now, bool any_case) {
  text = trim_ows(text);
  Fields f;
  if (parse_imf_fixdate(text, any_case, f) || parse_asctime(text, any_case, f)) return to_time(f);
  f = Fields{};
  if (parse_rfc850(text, any_case, f)) {
    f.year = complete_two_digit_year(f.year, now);
    return to_time(f);
  }
  return std::nullopt;
}

}  // namespace

std::optional<sys_seconds> parse_http_date(std::string_view text, sys_seconds now) {
  return parse(text, now, false);
}

std::optional<sys_seconds> parse_http_date_any_case(std::string_view text, sys_seconds now) {
  return parse(text, now, true);
}

std::string format_http_date(sys_seconds time) {
  const auto day_start = std::chrono::floor<std::chrono::days>(time);
  const std::chrono::year_month_day date{day_start};
  const std::chrono::hh_mm_ss clock{time - day_start};
  const std::chrono::weekday weekday{day_start};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02u %s %04d %02d:%02d:%02d GMT",
                kDayNames[weekday.c_encoding()].data(), static_cast<unsigned>(date.day()),
                kMonthNames[static_cast<unsigned>(date.month()) - 1].data(),
                static_cast<int>(date.year()), static_cast<int>(clock.hours().count()),
                static_cast<int>(clock.minutes().count()),
                static_cast<int>(clock.seconds().count()));
  return buf;
}

}  // namespace sumcache::daemon
