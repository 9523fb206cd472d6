#pragma once
// HTTP-date (RFC 9110 §5.6.7) for the test origin's Date, Last-Modified,
// Expires and If-Modified-Since.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace sumcache::testing {

using SysTime = std::chrono::system_clock::time_point;

// IMF-fixdate, the form a sender must use: "Sun, 06 Nov 1994 08:49:37 GMT".
std::string format_http_date(SysTime time);

// Any of the three forms a recipient must accept: IMF-fixdate, RFC 850
// ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov  6 08:49:37 1994").
// nullopt for anything else.
std::optional<SysTime> parse_http_date(std::string_view text);

}  // namespace sumcache::testing
