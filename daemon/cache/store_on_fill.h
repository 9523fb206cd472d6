#pragma once
// Store-on-fill: a response fetched for a request that may fill the cache
// becomes a stored object. One path for both fills: in the foreground, the
// body copied while it streams to the client (cache_service.cc), and in the
// background, a stale-while-revalidate refetch (cache_revalidate.cc).

#include <cstdint>
#include <optional>
#include <string>

#include "daemon/cache/cache_fill.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/http/cache_control.h"
#include "daemon/store/store.h"

namespace sumcache::daemon {

// Where a fill goes: the primary key, its hash (store.hash_key(key)) and the
// secondary key from fill_variant.
struct FillTarget {
  std::string key;
  filters::Hash128 hash;
  std::string variant;
};

// The secondary key (RFC 9111 §4.1) that a response to a GET with these
// fields and directives is stored under, or nullopt when it must not be
// stored (§3) or its Vary names a field no variant can be keyed on.
std::optional<std::string> fill_variant(const HeaderList& request_fields,
                                        const RequestDirectives& request_directives,
                                        const ResponseFacts& response,
                                        std::uint64_t max_object_bytes);

// Stores the response with its whole body. A store that refuses the object
// (over max_object_bytes with its head, over a tag bound) is a degraded path:
// counted in sumcache_cache_fills_not_stored_total and logged once a second
// at most, with the number held back since the last line.
void store_fill(WorkerContext& worker, Store& store, const Settings& settings, FillTarget target,
                const ResponseFacts& response, std::string body);

}  // namespace sumcache::daemon
