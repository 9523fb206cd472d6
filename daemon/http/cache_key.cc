#include "daemon/http/cache_key.h"

#include <array>
#include <charconv>
#include <cstring>

#include "daemon/http/field_value.h"
#include "daemon/http/uri_error.h"

namespace sumcache::daemon {
namespace {

std::uint16_t default_port(std::string_view scheme) { return scheme == "https" ? 443 : 80; }

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A reg-name octet: unreserved or sub-delims (RFC 3986 §3.2.2). Not "%":
// a percent-encoded name is another spelling of a plain one (§6.2.2.2), and
// DNS names need none; not a non-ASCII octet: an internationalized name
// travels as its A-label ("xn--..."), which clients make (RFC 5890).
bool is_reg_name_char(char c) {
  return is_alpha(c) || is_digit(c) ||
         (c != '\0' && std::strchr("-._~!$&'()*+,;=", c) != nullptr);
}

// Inside brackets: an IPv6 address, its hex digits, ":" and "." (RFC 3986
// §3.2.2); no zone identifier ("%25eth0") and no IPvFuture.
bool is_ip_literal_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
}

// The one spelling of a host that keys, routes, logs and goes upstream:
// lower-case (RFC 9110 §4.2.3), one trailing dot removed (an absolute DNS
// name, "example.com." is "example.com"), no empty label.
std::error_code canonical_host(std::string_view host, std::string& out) {
  if (host.empty()) return UriErrc::missing_host;
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return UriErrc::invalid_host;
    for (char c : host.substr(1, host.size() - 2)) {
      if (!is_ip_literal_char(c)) return UriErrc::invalid_host;
    }
    out = to_lower(host);
    return {};
  }
  if (host.back() == '.') host.remove_suffix(1);
  if (host.empty() || host.front() == '.' || host.back() == '.' ||
      host.find("..") != std::string_view::npos) {
    return UriErrc::invalid_host;
  }
  for (char c : host) {
    if (!is_reg_name_char(c)) return UriErrc::invalid_host;
  }
  out = to_lower(host);
  return {};
}

// Visible ASCII: what may appear in a path or query on the wire. Finer URI
// syntax is left to the origin, which sees the same bytes.
bool is_uri_octet(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u < 0x7F;
}

std::error_code parse_port(std::string_view text, std::string_view scheme, std::uint16_t& port) {
  if (text.empty()) {  // "host:" means the default port (RFC 3986 §6.2.3)
    port = default_port(scheme);
    return {};
  }
  const auto value = parse_uint64(text);
  if (!value || *value < 1 || *value > 65535) return UriErrc::invalid_port;
  port = static_cast<std::uint16_t>(*value);
  return {};
}

// authority = host [ ":" port ], userinfo refused (RFC 9110 §4.2.4); the
// host made canonical. `scheme` (already set in `out`) gives the default port.
std::error_code parse_authority(std::string_view authority, EffectiveUri& out) {
  if (authority.find('@') != std::string_view::npos) return UriErrc::userinfo;
  const bool bracketed = !authority.empty() && authority.front() == '[';
  const std::size_t close = bracketed ? authority.find(']') : 0;
  if (bracketed && close == std::string_view::npos) return UriErrc::invalid_host;
  const std::size_t colon = authority.find(':', close);
  if (auto ec = canonical_host(authority.substr(0, colon), out.host)) return ec;
  if (colon == std::string_view::npos) {
    out.port = default_port(out.scheme);
    return {};
  }
  return parse_port(authority.substr(colon + 1), out.scheme, out.port);
}

// path-abempty [ "?" query ] [ "#" fragment ]: the fragment is dropped.
std::error_code parse_path_and_query(std::string_view rest, EffectiveUri& out) {
  rest = rest.substr(0, rest.find('#'));
  for (char c : rest) {
    if (!is_uri_octet(c)) return UriErrc::invalid_character;
  }
  const std::size_t question = rest.find('?');
  out.path = std::string(rest.substr(0, question));
  if (out.path.empty()) out.path = "/";
  if (question != std::string_view::npos) out.query = std::string(rest.substr(question + 1));
  return {};
}

std::error_code set_scheme(std::string_view scheme, EffectiveUri& out) {
  out.scheme = to_lower(scheme);
  if (out.scheme != "http" && out.scheme != "https") return UriErrc::unsupported_scheme;
  return {};
}

}  // namespace

std::string canonical_authority(const EffectiveUri& uri) {
  if (uri.port == default_port(uri.scheme)) return uri.host;
  return uri.host + ":" + std::to_string(uri.port);
}

bool valid_host_field(std::string_view value) {
  value = trim_ows(value);
  if (value.empty()) return true;
  EffectiveUri scratch;
  scratch.scheme = "http";
  return !parse_authority(value, scratch);
}

// Built in one allocation: every request, hit or miss, makes its key.
std::string cache_key(const EffectiveUri& uri) {
  std::array<char, 8> port_text{':'};
  std::size_t port_size = 0;
  if (uri.port != default_port(uri.scheme)) {
    port_size = static_cast<std::size_t>(
        std::to_chars(port_text.data() + 1, port_text.data() + port_text.size(), uri.port).ptr -
        port_text.data());
  }
  std::string key;
  key.reserve(uri.scheme.size() + 3 + uri.host.size() + port_size + uri.path.size() +
              (uri.query ? 1 + uri.query->size() : 0));
  key.append(uri.scheme).append("://").append(uri.host);
  key.append(port_text.data(), port_size).append(uri.path);
  if (uri.query) key.append("?").append(*uri.query);
  return key;
}

Result<EffectiveUri> parse_absolute_uri(std::string_view uri) {
  if (uri.empty()) return make_error_code(UriErrc::empty);
  const std::size_t colon = uri.find(':');
  if (colon == std::string_view::npos || colon == 0 || !is_alpha(uri.front())) {
    return make_error_code(UriErrc::unsupported_scheme);
  }
  EffectiveUri out;
  if (auto ec = set_scheme(uri.substr(0, colon), out)) return ec;
  std::string_view rest = uri.substr(colon + 1);
  if (rest.substr(0, 2) != "//") return make_error_code(UriErrc::missing_authority);
  rest.remove_prefix(2);
  const std::size_t authority_end = rest.find_first_of("/?#");
  if (auto ec = parse_authority(rest.substr(0, authority_end), out)) return ec;
  if (authority_end == std::string_view::npos) {
    out.path = "/";
    return out;
  }
  if (auto ec = parse_path_and_query(rest.substr(authority_end), out)) return ec;
  return out;
}

Result<EffectiveUri> effective_request_uri(std::string_view request_target,
                                           std::optional<std::string_view> host,
                                           std::string_view scheme) {
  if (request_target.empty()) return make_error_code(UriErrc::empty);
  if (request_target.front() != '/') {
    if (request_target.find("://") == std::string_view::npos) {
      return make_error_code(UriErrc::unsupported_form);
    }
    return parse_absolute_uri(request_target);
  }
  // origin-form: the authority comes from Host (RFC 9112 §3.3).
  if (!host || trim_ows(*host).empty()) return make_error_code(UriErrc::missing_host);
  EffectiveUri out;
  if (auto ec = set_scheme(scheme, out)) return ec;
  if (auto ec = parse_authority(trim_ows(*host), out)) return ec;
  if (auto ec = parse_path_and_query(request_target, out)) return ec;
  return out;
}

bool same_origin(const EffectiveUri& a, const EffectiveUri& b) {
  return a.scheme == b.scheme && a.host == b.host && a.port == b.port;
}

}  // namespace sumcache::daemon
