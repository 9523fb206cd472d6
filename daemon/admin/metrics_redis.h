#pragma once
// The sumcache_redis_* families of /metrics and the "redis" object of /peers
// (cluster.transport "redis"; docs/peers.md, "Redis transport"). The names
// are fixed: bench/cluster reads them.

#include <nlohmann/json.hpp>

#include "daemon/admin/prometheus_writer.h"
#include "daemon/peer/redis_bus_stats.h"

namespace sumcache::daemon {

void write_redis_metrics(PrometheusWriter& w, const RedisBusStats& stats);
nlohmann::ordered_json redis_json(const RedisBusStats& stats);

}  // namespace sumcache::daemon
