#pragma once
// Invalidation after an unsafe request (RFC 9111 §4.4): which stored
// responses to drop when a POST, PUT, DELETE, PATCH or any method not known to
// be safe gets a non-error answer through the cache.

#include <string>
#include <string_view>
#include <vector>

#include "daemon/http/cache_key.h"
#include "daemon/http/header_list.h"

namespace sumcache::daemon {

// RFC 9110 §9.2.1: GET, HEAD, OPTIONS and TRACE are safe. Methods are
// case-sensitive (§9.1), and a method we do not know counts as unsafe
// (RFC 9111 §4.4: "including methods whose safety is unknown").
bool is_safe_method(std::string_view method);

// The primary keys to invalidate: none for a safe method or a status outside
// 2xx/3xx; otherwise the target URI, then Location and Content-Location
// resolved against it when they have the same origin (§4.4 forbids the
// others, against denial of service). No key appears twice. An unparsable
// Location or Content-Location is skipped.
std::vector<std::string> invalidation_keys(std::string_view method, int status,
                                           const EffectiveUri& target, const HeaderList& response);

}  // namespace sumcache::daemon
