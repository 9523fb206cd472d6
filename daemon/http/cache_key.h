#pragma once
// The primary cache key: the target URI of a request (RFC 9111 §2, RFC 9110
// §7.1), normalized as RFC 9110 §4.2.3 allows for http and https: scheme and
// host lower-cased, one trailing dot of the host removed, the default port
// dropped, an empty path made "/". The path and query are kept byte for byte;
// the fragment is never part of it.
//
// The target URI is computed once per request (effective_request_uri), and
// the key, the Host sent upstream (canonical_authority), the access log's URL
// and the site chosen all come from it, so no two of them can disagree
// (docs/proxy.md, "One authority per request"). An absolute-form target
// stands alone and the Host field is ignored (RFC 9112 §3.2.2), in both modes;
// origin-form takes the Host field and the listener's scheme.
//
// Hosts are strict: userinfo, a path, "%", a non-ASCII octet, an empty label
// or a zone identifier is refused (a 400 at the proxy), so that one host has
// one spelling.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "filters/result.h"

namespace sumcache::daemon {

struct EffectiveUri {
  std::string scheme;                // "http" or "https"
  std::string host;                  // lower-case; an IP-literal keeps its brackets
  std::uint16_t port = 0;            // explicit, or the scheme's default
  std::string path;                  // starts with "/"
  std::optional<std::string> query;  // without "?"; "" when the URI ends in "?"
  friend bool operator==(const EffectiveUri&, const EffectiveUri&) = default;
};

// "scheme://host[:port]path[?query]" with the default port left out.
std::string cache_key(const EffectiveUri& uri);

// "host[:port]" of the URI, the port only when it is not the scheme's
// default: the Host field a request for `uri` carries upstream.
std::string canonical_authority(const EffectiveUri& uri);

// Whether a Host field value is one effective_request_uri would accept:
// uri-host [":" port] under the rules above, or empty (RFC 9112 §3.2: a
// target without an authority).
bool valid_host_field(std::string_view value);

// An absolute http or https URI; a fragment is dropped.
Result<EffectiveUri> parse_absolute_uri(std::string_view uri);

// The target URI of a request from its request-target (RFC 9112 §3.2):
// absolute-form stands alone; origin-form needs the Host field value and the
// scheme the request arrived on. Asterisk- and authority-form are refused.
Result<EffectiveUri> effective_request_uri(std::string_view request_target,
                                           std::optional<std::string_view> host,
                                           std::string_view scheme);

// Same scheme, host and port (RFC 9110 §4.3.1, RFC 6454).
bool same_origin(const EffectiveUri& a, const EffectiveUri& b);

}  // namespace sumcache::daemon
