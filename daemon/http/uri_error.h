#pragma once
// Why a request target, Host header or URI reference was refused, with its
// std::error_category. Each maps to a 400 (Bad Request) at the proxy.

#include <system_error>

namespace sumcache::daemon {

enum class UriErrc {
  ok = 0,
  empty,               // no characters at all
  unsupported_form,    // asterisk-form or authority-form: nothing a cache can key
  unsupported_scheme,  // not http or https
  missing_authority,   // http(s) URI without "//authority" (RFC 9110 §4.2.1)
  missing_host,        // empty host, or origin-form without a Host header
  userinfo,            // "user@" in an http(s) authority (RFC 9110 §4.2.4)
  invalid_host,        // a character not allowed in a host (RFC 3986 §3.2.2)
  invalid_port,        // not digits, 0, or above 65535
  invalid_character,   // control, space or non-ASCII octet in the path or query
};

const std::error_category& uri_category() noexcept;

inline std::error_code make_error_code(UriErrc e) noexcept {
  return {static_cast<int>(e), uri_category()};
}

}  // namespace sumcache::daemon

template <>
struct std::is_error_code_enum<sumcache::daemon::UriErrc> : std::true_type {};
