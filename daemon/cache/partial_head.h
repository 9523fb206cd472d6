#pragma once
// The head of a 206 answered from a stored partial response; shared by
// partial_serve.cc and partial_complete.cc. Private to daemon/cache.

#include <string>
#include <string_view>

#include "daemon/cache/cache_request.h"
#include "daemon/cache/partial_table.h"

namespace sumcache::daemon {

// The head of a 206 from a stored partial response: its fields as a stored
// response keeps them (RFC 9111 §3.1), our Via, and the range sent
// (RFC 9110 §15.3.7).
std::string partial_head(const CacheRequest& r, const PartialEntry& entry, ByteRange range);

}  // namespace sumcache::daemon
