#include "config/peer_checks.h"

#include <vector>

#include "config/config_error.h"
#include "config/json_value.h"
#include "config/net_syntax.h"

namespace sumcache::config::detail {
namespace {

// One of this node's sockets as the config declares it; ICP's is UDP, the others TCP.
struct OwnSocket {
  std::string path;  // "$.listen[0]", "$.cluster.peer_listen"
  std::string address;
  std::uint16_t port = 0;
  bool udp = false;
};

std::vector<OwnSocket> own_sockets(const Config& c) {
  std::vector<OwnSocket> out;
  for (std::size_t i = 0; i < c.listen.size(); ++i) {
    out.push_back({element_path("$.listen", i), c.listen[i].address, c.listen[i].port});
  }
  if (c.admin.enabled) out.push_back({"$.admin", c.admin.address, c.admin.port});
  const ClusterConfig& cluster = c.cluster;
  if (cluster.sharing == Sharing::summary) {
    out.push_back({"$.cluster.peer_listen", cluster.peer_listen.address, cluster.peer_listen.port});
  }
  if (cluster.sharing == Sharing::icp) {
    // The ICP socket is bound on peer_listen's address (daemon/peer/peer_service.cc).
    out.push_back({"$.cluster.icp_port", cluster.peer_listen.address, cluster.icp_port, true});
  }
  if (cluster.sharing != Sharing::none && cluster.tls.enabled) {
    out.push_back(
        {"$.cluster.object_listen", cluster.object_listen.address, cluster.object_listen.port});
  }
  return out;
}

bool is_loopback(const IpAddress& a) {
  if (!a.v6) return a.bytes[0] == 127;
  IpAddress v6_loopback{true, {}};
  v6_loopback.bytes[15] = 1;
  return a == v6_loopback;
}

// Where a connect to `host` lands: on a listener bound to that address, or on a wildcard
// listener of its family when the host is this machine's loopback (Linux connects the
// unspecified address to loopback too). A name is not resolved here: it is checked after
// resolution, at each connect (access.deny_destinations and the own-listener rule of
// daemon/net/destination_policy.h).
bool reaches(const IpAddress& host, const std::string& listener_address) {
  const auto listener = parse_ip(listener_address);  // valid: the section readers checked it
  if (!listener || listener->v6 != host.v6) return false;
  if (listener->is_unspecified()) return is_loopback(host) || host.is_unspecified();
  return *listener == host;
}

void check_own_listeners(const Config& node, const PeerConfig& peer, const IpAddress& host,
                         const std::string& path) {
  struct PeerPort {
    const char* field;
    std::uint16_t port;
    bool used;
    bool udp;
  };
  const ClusterConfig& cluster = node.cluster;
  const PeerPort ports[] = {
      {"http_port", peer.http_port, true, false},
      {"peer_port", peer.peer_port, cluster.sharing == Sharing::summary, false},
      {"icp_port", peer.icp_port, cluster.sharing == Sharing::icp, true},
      {"object_port", peer.object_port, cluster.tls.enabled, false},
  };
  const auto sockets = own_sockets(node);
  for (const PeerPort& p : ports) {
    if (!p.used) continue;
    for (const OwnSocket& s : sockets) {
      if (s.udp != p.udp || s.port != p.port || !reaches(host, s.address)) continue;
      throw ConfigError(path + "." + p.field, peer.host + " port " + std::to_string(p.port) +
                                                  " is this node's own listener (" + s.path +
                                                  "): a peer is another node");
    }
  }
}

}  // namespace

void check_peer_entry(const Config& node, const PeerConfig& peer, const std::string& path) {
  // A Squid's digest is held in the summary directory; ICP asks Squids as it asks any peer.
  if (peer.protocol == PeerProtocol::squid_digest && node.cluster.sharing != Sharing::summary) {
    throw ConfigError(path + ".protocol",
                      "\"squid-digest\" needs cluster.sharing \"summary\" (its digest is held "
                      "in the summary directory; with \"icp\", list the Squid as a plain peer)");
  }
  if (peer.id == node.node.id) {
    throw ConfigError(path + ".id", "\"" + peer.id + "\" is this node's own id ($.node.id)");
  }
  const auto& deny = node.access.deny_destinations;
  for (std::size_t i = 0; i < deny.size(); ++i) {
    if (!cidr_holds(deny[i], peer.host)) continue;
    throw ConfigError(path + ".host", peer.host + " is inside $.access.deny_destinations[" +
                                          std::to_string(i) + "] (" + deny[i] +
                                          "): every connect to it would be refused");
  }
  if (const auto host = parse_ip(peer.host)) check_own_listeners(node, peer, *host, path);
}

}  // namespace sumcache::config::detail
