#pragma once
// The JSON bodies of /stats, /peers and /filter. Field names are a contract
// with the dashboard and sumcachectl: add fields, never rename. docs/admin.md
// gives each one's meaning and unit.

#include <nlohmann/json.hpp>

#include "daemon/admin/stats_snapshot.h"

namespace sumcache::daemon {

nlohmann::ordered_json stats_json(const StatsSnapshot& s);
nlohmann::ordered_json peers_json(const PeerStatusList& peers);
// Adds to each peer of a peers_json answer its "invalidations": sent,
// acked_through and pending (docs/peers.md, "Cluster-wide invalidation").
void add_invalidations_json(nlohmann::ordered_json& peers, const InvalidationStats& stats);
// Adds "directory": what this node holds for its peers' summaries, both kinds.
void add_summary_memory_json(nlohmann::ordered_json& peers, const SummaryMemory& memory);
nlohmann::ordered_json filter_json(const StatsSnapshot& s);

// The figures /filter derives from FilterStats, shared with /metrics.
struct FilterFigures {
  double fill_ratio = 0;             // set bits / m
  double estimated_fpr = 0;          // fill_ratio^k
  double estimated_cardinality = 0;  // -(m/k) ln(1 - fill); +inf when full
  std::uint64_t memory_bytes = 0;    // the counters: 4 bits each
};
FilterFigures filter_figures(const FilterStats& f);

}  // namespace sumcache::daemon
