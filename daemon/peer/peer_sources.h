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

}  // namespace sumcache::daemon
