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

// reg-name and IP-literal characters: unreserved, pct-encoded, sub-delims
// (RFC 3986 §3.2.2), plus ":" inside brackets.
bool is_host_char(char c, bool in_brackets) {
  return is_alpha(c) || is_digit(c) || std::strchr("-._~%!$&'()*+,;=", c) != nullptr ||
         (in_brackets && c == ':');
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

// authority = host [ ":" port ], userinfo refused (RFC 9110 §4.2.4).
std::error_code parse_authority(std::string_view authority, EffectiveUri& out) {
  if (authority.find('@') != std::string_view::npos) return UriErrc::userinfo;
  std::string_view host = authority;
  std::string_view port;
  bool has_port = false;
  const bool bracketed = !authority.empty() && authority.front() == '[';
  const std::size_t colon =
      bracketed ? authority.find(':', authority.find(']')) : authority.rfind(':');
  if (bracketed && authority.find(']') == std::string_view::npos) return UriErrc::invalid_host;
  if (colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    has_port = true;
  }
  if (host.empty()) return UriErrc::missing_host;
  if (bracketed && host.back() != ']') return UriErrc::invalid_host;
  const std::string_view inner = bracketed ? host.substr(1, host.size() - 2) : host;
  for (char c : inner) {
    if (!is_host_char(c, bracketed)) return UriErrc::invalid_host;
  }
  out.host = to_lower(host);
  if (!has_port) {
    out.port = default_port(out.scheme);
    return {};
  }
  return parse_port(port, out.scheme, out.port);
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
