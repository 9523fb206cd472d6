#pragma once
// The rules one peers[] entry must pass against this node's own config, declared once for
// both places a peer comes from: the config file (cross_checks.cc, at each load) and the
// admin's POST /peers (peer_entry.h). Rules over the list as a whole (duplicate ids, two
// entries with one host and port) stay in cross_checks.cc and, at run time, in the peer
// service's check_join, which sees the live table. Internal to the config library.

#include <string>

#include "config/config.h"

namespace sumcache::config::detail {

// Throws ConfigError at `path` plus the field ("$.peers[2].host", "$.http_port") on the
// first rule `peer` breaks:
//   - protocol "squid-digest" needs cluster.sharing "summary";
//   - the id is not node.id;
//   - the host, when an IP literal, is not inside access.deny_destinations (every connect
//     to it would be refused: link-local by default);
//   - the host and a port the node would use (http_port; peer_port with sharing "summary",
//     icp_port with "icp", object_port with cluster.tls) do not reach one of this node's
//     own listeners: an IP literal equal to the listener's address, or a loopback or
//     unspecified address when the listener is a wildcard of its family.
void check_peer_entry(const Config& node, const PeerConfig& peer, const std::string& path);

}  // namespace sumcache::config::detail
