#pragma once
// Where the proxy may connect upstream: a pure decision over one resolved
// address and port, checked after name resolution so that a name which
// resolves to this host (DNS rebinding included) is judged by where it leads.
//   own_listener: one of this node's own listeners (proxy, admin, peer, ICP),
//                 always refused: no config opens the admin port through the proxy;
//   peer_listener: a peer's peer, object, admin or ICP port (configured or
//                 discovered peers; their proxy ports stay reachable), so that
//                 a client cannot speak to a sibling as this node;
//   denied:       inside access.deny_destinations (Squid's `http_access deny
//                 to_localhost` in spirit; by default the link-local ranges,
//                 where cloud metadata services answer).
// docs/proxy.md, "Destinations", has the rules and the choices.

#include <cstdint>
#include <vector>

#include "daemon/net/cidr.h"

namespace sumcache::daemon {

struct ListenerAddress {
  Ip6Bytes address{};  // as bound; the unspecified address for a wildcard listener
  std::uint16_t port = 0;
};

// This node's listeners and the addresses of its interfaces (getifaddrs),
// both in the IPv4-mapped form of cidr.h.
struct OwnListeners {
  std::vector<ListenerAddress> listeners;
  std::vector<Ip6Bytes> local_addresses;
};

// The private listeners of this node's peers (peer, object, admin and ICP
// ports at each address a peer's host resolved to), a snapshot the peer layer
// fills in and replaces whenever the peers change (daemon/peer/peer_listeners.h).
struct PeerListeners {
  std::vector<ListenerAddress> listeners;
};

enum class DestinationVerdict { allowed, own_listener, denied, peer_listener };

// Loopback (127.0.0.0/8, ::1) and the unspecified address, which Linux
// connects to loopback.
bool is_loopback_or_unspecified(const Ip6Bytes& address);

// `peers`: null for a connect this node makes to a peer's object listener
// itself (Origin::peer), which no client chooses.
DestinationVerdict check_destination(const Ip6Bytes& address, std::uint16_t port,
                                     const OwnListeners& own, const PeerListeners* peers,
                                     const AccessList& deny);

}  // namespace sumcache::daemon
