#pragma once
// Error codes of sumcachectl's HTTP exchange with the admin endpoint.

#include <system_error>

namespace sumcache::tools {

enum class CtlErrc {
  ok = 0,
  incomplete_response,  // more bytes are needed (the reader keeps reading)
  malformed_response,   // not an HTTP/1.x response
  response_too_large,   // head or body over its cap
  token_file_unusable,  // missing, unreadable, empty or over its cap
  not_an_ip_literal,    // --admin names a host: no resolver with a timeout here
  cacert_unusable,      // --cacert (or the system store) gave no certificate to verify with
  tls_failed,  // handshake or session failed: not a TLS port, nothing in common, a TLS alert
  certificate_untrusted,      // the admin's certificate does not chain to a trusted CA
  certificate_name_mismatch,  // it does, but does not name the host in --admin
};

const std::error_category& ctl_category() noexcept;

inline std::error_code make_error_code(CtlErrc e) noexcept {
  return {static_cast<int>(e), ctl_category()};
}

}  // namespace sumcache::tools

template <>
struct std::is_error_code_enum<sumcache::tools::CtlErrc> : std::true_type {};
