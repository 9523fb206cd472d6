#pragma once
// Field value syntax shared by every rule (RFC 9110 §5.6): OWS trimming,
// case-insensitive comparison of tokens, comma-separated lists and
// delta-seconds (RFC 9111 §1.2.2).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sumcache::daemon {

// RFC 9111 §1.2.2: a delta-seconds too large to represent is taken as 2^31.
inline constexpr std::chrono::seconds kMaxDeltaSeconds{std::int64_t{1} << 31};

// Removes leading and trailing OWS (SP and HTAB, RFC 9110 §5.6.3).
std::string_view trim_ows(std::string_view text);
// ASCII case-insensitive equality: field names, tokens and directive names.
bool iequals(std::string_view a, std::string_view b);
std::string to_lower(std::string_view text);

// The members of a list-based field value (RFC 9110 §5.6.1), OWS-trimmed,
// empty members dropped. Commas inside quoted strings and comments do not split.
std::vector<std::string_view> split_list(std::string_view value);

// delta-seconds = 1*DIGIT (RFC 9111 §1.2.2); values above 2^31 clamp to 2^31.
// Anything else, including an empty string or a sign, is nullopt.
std::optional<std::chrono::seconds> parse_delta_seconds(std::string_view text);

// 1*DIGIT as an unsigned 64-bit number (Content-Length, byte positions,
// ports); nullopt for anything else or on overflow.
std::optional<std::uint64_t> parse_uint64(std::string_view text);

// The content of a quoted-string with quoted-pairs undone (RFC 9110 §5.6.4),
// or the text itself when it is not quoted.
std::string unquote(std::string_view text);

}  // namespace sumcache::daemon
