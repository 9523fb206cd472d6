#pragma once
// A response to POST that may be stored, to answer a later GET of the same
// URI. RFC 9110 §9.3.3: a POST response is cacheable only with explicit
// freshness information and a Content-Location equal to the target URI; such
// a response "can be used to satisfy subsequent GET and HEAD requests".
// RFC 9111 §4.4 still invalidates the target first: the caller stores the
// response after invalidation_keys' entries are gone.

#include "daemon/http/cache_key.h"
#include "daemon/http/cacheability.h"

namespace sumcache::daemon {

enum class PostStoreReason {
  storable,
  not_post,
  content_location_elsewhere,  // absent, more than one, unparsable, or another URI
  no_explicit_freshness,       // no s-maxage, max-age or Expires (§9.3.3)
  not_storable,                // what a GET response would fail (storability)
};

// `input.method` is the request's; the rest of the input is checked as it
// would be for a GET (RFC 9111 §3). The Content-Location is resolved against
// `target` (RFC 9110 §8.7) and compared as a cache key (RFC 9111 §2).
PostStoreReason post_storability(const StoreInput& input, const EffectiveUri& target);

}  // namespace sumcache::daemon
