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
// against the date (robustness, RFC 9110 §5.6.7). Names are case-sensitive
// like the grammar. Anything else, or an impossible date, is nullopt.
//
// `now` only resolves RFC 850's two-digit year: a year that would lie more
// than 50 years after `now` is taken from the century before (RFC 9110 §5.6.7).
std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view text,
                                                        std::chrono::sys_seconds now);

// IMF-fixdate, the only form a sender generates (RFC 9110 §5.6.7).
std::string format_http_date(std::chrono::sys_seconds time);

}  // namespace sumcache::daemon
