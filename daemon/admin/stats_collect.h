#pragma once
// Copies the figures out of the running node into a StatsSnapshot.

#include <cstdint>

#include "daemon/admin/admin_context.h"
#include "daemon/admin/stats_snapshot.h"

namespace sumcache::daemon {

// Everything except `upstream`, whose pools live on the worker threads. The
// request counters are each worker's own, summed here.
StatsSnapshot collect_stats(const AdminContext& context);

// The ratio counters of every worker, summed: what the RateWindow samples.
WindowTotals summed_window_totals(const std::vector<Worker*>& workers);

}  // namespace sumcache::daemon
