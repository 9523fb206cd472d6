#pragma once
// A response whose targeted cache-control field (cache.targeted_fields) was
// present but invalid: the cache ignored it as RFC 9213 §2.2 asks, and the
// next listed field or Cache-Control decided instead. That is often an
// origin's typo (MaX-aGe, "max-age = 60"), so it is counted in
// sumcache_targeted_fields_invalid_total and logged once a second at most,
// with the field, the URL and the count held back.

#include <string_view>

#include "daemon/exchange/proxy_context.h"

namespace sumcache::daemon {

void note_invalid_targeted_field(WorkerContext& worker, std::string_view field,
                                 std::string_view key);

}  // namespace sumcache::daemon
