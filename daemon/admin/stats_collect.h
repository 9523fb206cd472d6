#pragma once
// Copies the figures out of the running node into a StatsSnapshot.

#include <cstdint>

#include "daemon/admin/stats_snapshot.h"
#include "daemon/exchange/proxy_context.h"

namespace sumcache::daemon {

// Everything except `upstream`, whose pools live on the worker threads.
// `now`: seconds on the clock the RateWindow is sampled with.
StatsSnapshot collect_stats(ProxyShared& shared, const RateWindow& window, std::int64_t now);

}  // namespace sumcache::daemon
