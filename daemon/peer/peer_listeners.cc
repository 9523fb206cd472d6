#include "daemon/peer/peer_listeners.h"

#include <algorithm>

#include "daemon/net/address_bytes.h"
#include "daemon/net/resolve_addresses.h"

namespace sumcache::daemon {

namespace {

void note_unresolved(Logger& log, const config::PeerConfig& peer, const error_code& ec) {
  log.warn("peer " + peer.id + ": " + peer.host + " does not resolve (" + ec.message() +
           "): its private ports are not refused as proxy destinations until it does");
}

}  // namespace

std::vector<std::uint16_t> private_ports(const config::PeerConfig& peer,
                                         std::uint16_t own_admin_port) {
  std::vector<std::uint16_t> ports = {peer.peer_port, peer.object_port,
                                      peer.admin_port != 0 ? peer.admin_port : own_admin_port,
                                      peer.icp_port};
  // A port that is also the peer's proxy port stays reachable: that one is public.
  std::erase_if(ports, [&](std::uint16_t p) { return p == 0 || p == peer.http_port; });
  std::sort(ports.begin(), ports.end());
  ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
  return ports;
}

void add_peer_listeners(const config::PeerConfig& peer, std::uint16_t own_admin_port,
                        const std::vector<asio::ip::address>& addresses, PeerListeners& out) {
  const auto ports = private_ports(peer, own_admin_port);
  for (const auto& address : addresses) {
    for (std::uint16_t port : ports) out.listeners.push_back({ip6_bytes(address), port});
  }
}

PeerListeners peer_listeners(const asio::any_io_executor& executor,
                             const std::vector<config::PeerConfig>& peers,
                             std::uint16_t own_admin_port, Logger& log) {
  PeerListeners out;
  for (const auto& peer : peers) {
    const ResolvedAddresses resolved = resolve_addresses(executor, peer.host);
    if (resolved.ec) {
      note_unresolved(log, peer, resolved.ec);
      continue;
    }
    add_peer_listeners(peer, own_admin_port, resolved.addresses, out);
  }
  return out;
}

awaitable<PeerListeners> resolve_peer_listeners(asio::any_io_executor executor,
                                                std::vector<config::PeerConfig> peers,
                                                std::uint16_t own_admin_port, Logger& log,
                                                std::chrono::milliseconds timeout) {
  PeerListeners out;
  for (const auto& peer : peers) {
    const ResolvedAddresses resolved =
        co_await resolve_addresses_within(executor, peer.host, timeout);
    if (resolved.ec) {
      note_unresolved(log, peer, resolved.ec);
      continue;
    }
    add_peer_listeners(peer, own_admin_port, resolved.addresses, out);
  }
  co_return out;
}

}  // namespace sumcache::daemon
