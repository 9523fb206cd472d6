#pragma once
// The primary cache key: the target URI of a request (RFC 9111 §2, RFC 9110
// §7.1), normalized as RFC 9110 §4.2.3 allows for http and https: scheme and
// host lower-cased, the default port dropped, an empty path made "/". The
// path and query are kept byte for byte; the fragment is never part of it.
//
// Reverse proxy: origin-form target + Host header + the listener's scheme.
// Forward proxy: absolute-form target ("http://Host:80/a?b"), Host ignored
// (RFC 9112 §3.2.2).

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
