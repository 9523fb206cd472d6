#pragma once
// The sumcache_tls_* families of /metrics (docs/tls.md, "Metrics").

#include "daemon/admin/prometheus_writer.h"
#include "daemon/tls/tls_listener.h"

namespace sumcache::daemon {

void write_tls_metrics(PrometheusWriter& w, const TlsStats& stats);

}  // namespace sumcache::daemon
