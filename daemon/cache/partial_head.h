#pragma once
// Shared by partial_serve.cc and partial_complete.cc. Private to daemon/cache.

#include <string>
#include <string_view>

#include "daemon/cache/cache_request.h"
#include "daemon/cache/partial_table.h"

namespace sumcache::daemon {

// A 206 an origin got wrong (RFC 9110 §14.4, §15.3.7): relayed as it came,
// never stored; counted in sumcache_cache_partial_invalid_total and logged
// once a second at most with the number held back.
void note_invalid_partial(WorkerContext& worker, const std::string& key, std::string_view why);

// The head of a 206 from a stored partial response: its fields as a stored
// response keeps them (RFC 9111 §3.1), our Via, and the range sent
// (RFC 9110 §15.3.7).
std::string partial_head(const CacheRequest& r, const PartialEntry& entry, ByteRange range);

}  // namespace sumcache::daemon
