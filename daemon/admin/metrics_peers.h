#pragma once
// The sumcache_peer_* families of /metrics: one series per peer, labelled peer="<id>".

#include "daemon/admin/prometheus_writer.h"
#include "daemon/peer/peer_status.h"

namespace sumcache::daemon {

void write_peer_metrics(PrometheusWriter& w, const PeerStatusList& peers);

}  // namespace sumcache::daemon
