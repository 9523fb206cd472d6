#pragma once
// The private listeners of this node's peers (peer, object, admin and ICP
// ports), which the proxy refuses as destinations like its own
// (daemon/net/destination_policy.h, docs/proxy.md "Destinations"): without
// this, a proxy client could speak to a sibling's admin or peer listener from
// this node's address, which the sibling trusts. A peer's proxy port is not
// on the list: clients and peers fetch through it.

#include <chrono>
#include <cstdint>
#include <vector>

#include "config/config.h"
#include "daemon/log/logger.h"
#include "daemon/net/asio.h"
#include "daemon/net/destination_policy.h"

namespace sumcache::daemon {

// The ports of `peer` to refuse: peer, object, admin (`own_admin_port`, this
// node's admin.port, when the peer names none) and ICP.
std::vector<std::uint16_t> private_ports(const config::PeerConfig& peer,
                                         std::uint16_t own_admin_port);

// Those ports at every address of `addresses` (one peer's host, resolved).
void add_peer_listeners(const config::PeerConfig& peer, std::uint16_t own_admin_port,
                        const std::vector<asio::ip::address>& addresses, PeerListeners& out);

// At startup: the peers' hosts resolved on the calling thread. A host that
// does not resolve is logged and left out (its name is not reachable either).
PeerListeners peer_listeners(const asio::any_io_executor& executor,
                             const std::vector<config::PeerConfig>& peers,
                             std::uint16_t own_admin_port, Logger& log);

// At runtime, each time the peers change: names resolved without blocking
// the peer thread, each within `timeout`.
awaitable<PeerListeners> resolve_peer_listeners(asio::any_io_executor executor,
                                                std::vector<config::PeerConfig> peers,
                                                std::uint16_t own_admin_port, Logger& log,
                                                std::chrono::milliseconds timeout);

}  // namespace sumcache::daemon
