#pragma once
// Splitting a request-target into path and query parameters, for the test origin.

#include <map>
#include <string>
#include <string_view>

namespace sumcache::testing {

struct RequestTarget {
  std::string path;                                        // still percent-encoded, as sent
  std::map<std::string, std::string, std::less<>> params;  // decoded; the last repeat wins
};

// Accepts origin-form and absolute-form, which a server must accept too
// (RFC 9112 §3.2.2); absolute-form is reduced to its path.
RequestTarget parse_target(std::string_view target);

// Decodes %XX escapes (RFC 3986 §2.1); '+' stays '+', a broken escape stays as written.
std::string percent_decode(std::string_view text);
// Encodes every octet but RFC 3986's unreserved ones, for building query values in tests.
std::string percent_encode(std::string_view text);

}  // namespace sumcache::testing
