#include "daemon/net/destination_policy.h"

#include <algorithm>

namespace sumcache::daemon {
namespace {

bool is_v4_mapped(const Ip6Bytes& a) {
  return std::all_of(a.begin(), a.begin() + 10, [](std::uint8_t b) { return b == 0; }) &&
         a[10] == 0xFF && a[11] == 0xFF;
}

bool is_unspecified(const Ip6Bytes& a) {
  const auto first = is_v4_mapped(a) ? a.begin() + 12 : a.begin();
  return std::all_of(first, a.end(), [](std::uint8_t b) { return b == 0; });
}

// Where Linux sends a connect to the unspecified address: the loopback
// address of its family (127.0.0.1, ::1).
Ip6Bytes connected_address(const Ip6Bytes& a) {
  if (!is_unspecified(a)) return a;
  Ip6Bytes loopback{};
  if (is_v4_mapped(a)) {
    loopback[10] = 0xFF;
    loopback[11] = 0xFF;
    loopback[12] = 127;
    loopback[15] = 1;
  } else {
    loopback[15] = 1;
  }
  return loopback;
}

// A wildcard listener takes connections on every local address, of either
// family: IPv6 listeners are IPv6-only, but a port this node holds on one
// family is refused on both rather than guessed about.
bool reaches(const ListenerAddress& listener, const Ip6Bytes& destination,
             const OwnListeners& own) {
  if (!is_unspecified(listener.address)) return listener.address == destination;
  return is_loopback_or_unspecified(destination) ||
         std::find(own.local_addresses.begin(), own.local_addresses.end(), destination) !=
             own.local_addresses.end();
}

bool is_this_host(const Ip6Bytes& a, const OwnListeners& own) {
  return is_loopback_or_unspecified(a) ||
         std::find(own.local_addresses.begin(), own.local_addresses.end(), a) !=
             own.local_addresses.end();
}

// A peer on this very host (a loopback or interface address: the test and
// demo clusters) may listen on a wildcard address, which is not known here:
// its port is refused on every address of this host.
bool reaches_peer(const Ip6Bytes& peer, const Ip6Bytes& destination, const OwnListeners& own) {
  if (peer == destination) return true;
  return is_this_host(peer, own) && is_this_host(destination, own);
}

}  // namespace

bool is_loopback_or_unspecified(const Ip6Bytes& a) {
  if (is_unspecified(a)) return true;
  if (is_v4_mapped(a)) return a[12] == 127;
  const Ip6Bytes v6_loopback = connected_address(Ip6Bytes{});
  return a == v6_loopback;
}

DestinationVerdict check_destination(const Ip6Bytes& address, std::uint16_t port,
                                     const OwnListeners& own, const PeerListeners* peers,
                                     const AccessList& deny) {
  const Ip6Bytes destination = connected_address(address);
  for (const ListenerAddress& listener : own.listeners) {
    if (listener.port == port && reaches(listener, destination, own)) {
      return DestinationVerdict::own_listener;
    }
  }
  if (peers != nullptr) {
    for (const ListenerAddress& listener : peers->listeners) {
      if (listener.port == port &&
          reaches_peer(connected_address(listener.address), destination, own)) {
        return DestinationVerdict::peer_listener;
      }
    }
  }
  if (deny.allows(destination)) return DestinationVerdict::denied;
  return DestinationVerdict::allowed;
}

}  // namespace sumcache::daemon
