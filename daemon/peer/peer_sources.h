#pragma once
// Who may connect to the listeners that only peers use (the summary listener,
// the TLS object listener): cluster.peer_allow when given, else the peers'
// own addresses, their names resolved when this is called.

#include <optional>
#include <vector>

#include "config/config.h"
#include "daemon/log/logger.h"
#include "daemon/net/asio.h"
#include "daemon/net/cidr.h"

namespace sumcache::daemon {

// nullopt accepts any source: a peer's name did not resolve (logged, naming
// `listener`), or there are no peers to tell apart.
std::optional<AccessList> peer_sources(const asio::any_io_executor& executor,
                                       const config::ClusterConfig& cluster,
                                       const std::vector<config::PeerConfig>& peers, Logger& log,
                                       std::string_view listener);

// The same, for a change of peers at runtime: names resolved without
// blocking the calling thread, each within `timeout` (one that does not
// resolve in time counts as one that does not resolve).
awaitable<std::optional<AccessList>> resolve_peer_sources(asio::any_io_executor executor,
                                                          config::ClusterConfig cluster,
                                                          std::vector<config::PeerConfig> peers,
                                                          Logger& log, std::string listener,
                                                          std::chrono::milliseconds timeout);

}  // namespace sumcache::daemon
