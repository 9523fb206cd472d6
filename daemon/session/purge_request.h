#pragma once
// The body of POST /purge: one of `url=<absolute URL>`, `tag=<tag>` or
// `prefix=<absolute URL prefix>` form-encoded, or JSON {"url": "..."},
// {"tag": "..."} or {"prefix": "..."}; and what the store removes by it
// (docs/admin.md, "POST /purge").

#include <optional>
#include <string>
#include <string_view>

namespace sumcache::daemon {

enum class PurgeKind { url, tag, prefix };

struct PurgeTarget {
  PurgeKind kind = PurgeKind::url;
  std::string url;        // as given: the URL, the tag or the prefix
  std::string cache_key;  // the cache key; the tag itself; the prefix of keys
};

// A tag as cache.tag_header lists it and an invalidation carries it: 1 to
// kMaxInvalidationTagBytes bytes, none a space, comma or control character.
bool valid_purge_tag(std::string_view tag);
// "url", "tag" or "prefix": the member of the answer that names the target.
const char* purge_member(PurgeKind kind);

// The JSON form when the content type says application/json or the body
// starts with '{'; the form encoding otherwise. nullopt with `why` set (the
// 400's reason) when the body or the URL is not usable.
std::optional<PurgeTarget> parse_purge_body(std::string_view content_type, std::string_view body,
                                            std::string& why);

// application/x-www-form-urlencoded value decoding: '+' is a space, %XX a
// byte. nullopt on a malformed escape.
std::optional<std::string> form_decode(std::string_view text);

}  // namespace sumcache::daemon
