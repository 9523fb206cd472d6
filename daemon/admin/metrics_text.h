#pragma once
// GET /metrics: the same figures as /stats, /filter and /peers in the
// Prometheus text exposition format 0.0.4. docs/admin.md lists the families.

#include <string>

#include "daemon/admin/stats_snapshot.h"

namespace sumcache::daemon {

inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string metrics_text(const StatsSnapshot& s);

// A cache result as a label value: "REFRESH_HIT" -> "refresh_hit".
std::string result_label(CacheResult r);

}  // namespace sumcache::daemon
