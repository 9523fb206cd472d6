#pragma once
// Secondary cache key from Vary (RFC 9111 §4.1): a stored response may serve
// a new request only if the request fields its Vary names match those of the
// request that produced it.
//
// The key is a canonical string: for each field name in Vary order
// (lower-cased, repeats dropped) a line "name:value\n" when the request has
// the field, "name\n" when it has not (absent only matches absent). Values
// are normalized as §4.1 allows: lines joined with ", ", list members
// OWS-trimmed and re-joined with ", ", runs of SP/HTAB outside quoted strings
// made one SP. Accept-Language is put in a canonical form of its own
// (accept_language.h: case, q order, redundant q=0 members). Other values are
// compared case-sensitively; a needless mismatch costs a miss, a false match
// would serve the wrong variant.

#include <optional>
#include <string>
#include <string_view>

#include "daemon/http/header_list.h"

namespace sumcache::daemon {

// The secondary key of `request` under a stored response's Vary field value
// (all Vary lines joined). nullopt for "Vary: *", which never matches.
// An empty or absent Vary gives "", which every request matches.
std::optional<std::string> secondary_key(std::string_view vary, const HeaderList& request);

// Whether `request` may be served the stored response whose Vary is `vary`
// and whose secondary key, computed when it was stored, is `stored_key`.
bool vary_matches(std::string_view vary, std::string_view stored_key, const HeaderList& request);

// The field names a secondary key was built from, as a Vary field value
// ("name, name"): secondary_key() under it gives any request the key it
// would have under the stored response's own Vary. The store groups a key's
// variants by it, so that a lookup builds one key per group, never one per
// variant (docs/store.md, "Variants").
std::string vary_fields(std::string_view stored_key);

// Whether a Vary field value contains "*".
bool vary_is_star(std::string_view vary);

}  // namespace sumcache::daemon
