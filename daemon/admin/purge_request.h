#pragma once
// The body of POST /purge: `url=<absolute URL>` form-encoded, or JSON
// {"url": "..."}; and the cache key that URL is stored under.

#include <optional>
#include <string>
#include <string_view>

namespace sumcache::daemon {

struct PurgeTarget {
  std::string url;
  std::string cache_key;
};

// The JSON form when the content type says application/json or the body
// starts with '{'; the form encoding otherwise. nullopt with `why` set (the
// 400's reason) when the body or the URL is not usable.
std::optional<PurgeTarget> parse_purge_body(std::string_view content_type, std::string_view body,
                                            std::string& why);

// application/x-www-form-urlencoded value decoding: '+' is a space, %XX a
// byte. nullopt on a malformed escape.
std::optional<std::string> form_decode(std::string_view text);

}  // namespace sumcache::daemon
