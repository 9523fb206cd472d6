#pragma once
// HTTP-date (RFC 9110 §5.6.7): the preferred IMF-fixdate and the two obsolete
// forms a recipient must still accept, RFC 850 and asctime. Dates are whole
// seconds of UTC, so they are std::chrono::sys_seconds.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace sumcache::daemon {

// Accepts
//   IMF-fixdate  "Sun, 06 Nov 1994 08:49:37 GMT"
//   RFC 850      "Sunday, 06-Nov-94 08:49:37 GMT"
//   asctime      "Sun Nov  6 08:49:37 1994"
// with surrounding OWS. The day name must be a valid name but is not checked
// against the date (robustness, RFC 9110 §5.6.7). Names are case-sensitive here
// like the grammar. Anything else, or an impossible date, is nullopt.
//
// `now` only resolves RFC 850's two-digit year: a year that would lie more
// than 50 years after `now` is taken from the century before (RFC 9110 §5.6.7).
std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view text,
                                                        std::chrono::sys_seconds now);

// The same forms with day names, month names and "GMT" in any letter case
// ("THU, 18 AUG 2050 02:01:18 gmt"): RFC 9110 §5.6.7 is case-sensitive, but
// the case of a name cannot change which instant is meant, so for the dates a
// response carries (Expires, Date, Last-Modified) we are as tolerant as the
// most tolerant caches. Everything else stays as strict as parse_http_date:
// "UTC", a two-digit year in IMF-fixdate, a missing comma, doubled spaces,
// dashes, periods or one-digit hours are still invalid (an invalid Expires is
// in the past, RFC 9111 §5.3). A client's If-Modified-Since and If-Range keep
// the exact grammar (parse_http_date): RFC 9110 §13.1.3 tells a recipient to
// ignore an If-Modified-Since that is not a valid HTTP-date, and If-Range
// wants an exact match (§13.1.5).
std::optional<std::chrono::sys_seconds> parse_http_date_any_case(std::string_view text,
                                                                 std::chrono::sys_seconds now);

// IMF-fixdate, the only form a sender generates (RFC 9110 §5.6.7).
std::string format_http_date(std::chrono::sys_seconds time);

}  // namespace sumcache::daemon
