#pragma once
// Store-on-fill: a response fetched for a request that may fill the cache
// becomes a stored object. One path for both fills: in the foreground, the
// body copied while it streams to the client (cache_service.cc), and in the
// background, a stale-while-revalidate refetch (cache_revalidate.cc).

#include <string>

#include "daemon/cache/cache_fill.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/store/store.h"

namespace sumcache::daemon {

// Where a fill goes: the primary key, its hash (store.hash_key(key)) and the
// secondary key from fill_variant (cache_fill.h).
struct FillTarget {
  std::string key;
  filters::Hash128 hash;
  std::string variant;
};

// Stores the response with its whole body. A store that refuses the object
// (over max_object_bytes with its head, over a tag bound) is a degraded path:
// counted in sumcache_cache_fills_not_stored_total and logged once a second
// at most, with the number held back since the last line.
void store_fill(WorkerContext& worker, Store& store, const Settings& settings, FillTarget target,
                const ResponseFacts& response, std::string body);

}  // namespace sumcache::daemon
