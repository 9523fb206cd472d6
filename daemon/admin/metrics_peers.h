#pragma once
// The sumcache_peer_* families of /metrics: one series per peer, labelled peer="<id>".

#include "daemon/admin/prometheus_writer.h"
#include "daemon/peer/listener_refusals.h"
#include "daemon/peer/peer_status.h"

namespace sumcache::daemon {

void write_peer_metrics(PrometheusWriter& w, const PeerStatusList& peers);
// sumcache_peer_listener_refused_total{reason="..."}: one series per reason.
void write_peer_listener_metrics(PrometheusWriter& w, const RefusalCounts& refusals);
// What this node holds for its peers' summaries, both directories (summary mode).
void write_summary_memory_metrics(PrometheusWriter& w, const SummaryMemory& memory);

}  // namespace sumcache::daemon
