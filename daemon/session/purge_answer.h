#pragma once
// The "nodes" member of a purge's answer (PURGE on the proxy port, admin POST
// /purge): where the purge has taken effect, this node included
// (docs/peers.md, "Cluster-wide invalidation").

#include <nlohmann/json.hpp>

#include "daemon/peer/purge_reach.h"

namespace sumcache::daemon {

// {"acked": a, "total": t, "pending": ["node-b", ...]}
nlohmann::ordered_json reach_json(const PurgeReach& reach);

}  // namespace sumcache::daemon
