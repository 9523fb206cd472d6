#include "daemon/peer/peer_request_check.h"

#include "protocol/node_id.h"
#include "protocol/peer_auth.h"

namespace sumcache::daemon {
namespace {

using protocol::PeerAuthErrc;

// The node a refused request claims to be: only a valid id goes into a log line.
std::string claimed_node(const PeerRequestFacts& facts) {
  for (auto auth : facts.auths) {
    if (auto fields = protocol::parse_peer_auth(auth)) return std::string(fields->node);
  }
  for (auto marker : facts.markers) {
    if (protocol::valid_node_id(marker)) return std::string(marker);
  }
  return "?";
}

PeerRequestCheck refuse(const PeerRequestFacts& facts, std::error_code reason) {
  return {PeerRequestKind::refused, claimed_node(facts), reason};
}

}  // namespace

PeerRequestCheck check_peer_request(const PeerRequestFacts& facts, std::string_view secret,
                                    const protocol::SecretLookup& peer_secret) {
  if (facts.markers.empty() && facts.auths.empty()) return {};
  if (secret.empty()) return {PeerRequestKind::unchecked_peer, {}, {}};
  if (facts.auths.empty()) return refuse(facts, PeerAuthErrc::missing);
  if (facts.auths.size() > 1 || facts.markers.size() > 1) {
    return refuse(facts, PeerAuthErrc::malformed);
  }
  auto node = protocol::verify_peer_request(facts.auths.front(), facts.method, facts.target,
                                            facts.now, peer_secret);
  if (!node) return refuse(facts, node.error());
  if (!facts.markers.empty() && facts.markers.front() != *node) {
    return refuse(facts, PeerAuthErrc::node_mismatch);
  }
  // Peers only ask for stored objects (docs/peers.md): a signed PURGE, CONNECT
  // or POST has no business bypassing the client allow-list.
  if (facts.method != "GET" && facts.method != "HEAD") {
    return refuse(facts, PeerAuthErrc::bad_method);
  }
  return {PeerRequestKind::verified_peer, std::move(node).value(), {}};
}

}  // namespace sumcache::daemon
