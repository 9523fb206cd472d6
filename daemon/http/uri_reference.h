#pragma once
// Resolving a URI reference (a Location or Content-Location value) against
// the request's target URI: RFC 3986 §5.2, dot segments removed (§5.2.4).

#include <string>
#include <string_view>

#include "daemon/http/cache_key.h"
#include "filters/result.h"

namespace sumcache::daemon {

// The target URI `reference` names when read relative to `base`. The result
// is an http(s) URI like any other key; a reference to another scheme is
// UriErrc::unsupported_scheme.
Result<EffectiveUri> resolve_reference(const EffectiveUri& base, std::string_view reference);

// RFC 3986 §5.2.4: "/a/b/../c/./d" -> "/a/c/d".
std::string remove_dot_segments(std::string_view path);

}  // namespace sumcache::daemon
