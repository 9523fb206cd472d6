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
  if (facts.markers.empty() && facts.auths.empty() && facts.owner_marks.empty()) return {};
  if (secret.empty()) return {PeerRequestKind::unchecked_peer, {}, {}};
  if (facts.auths.empty()) return refuse(facts, PeerAuthErrc::missing);
  if (facts.auths.size() > 1 || facts.markers.size() > 1 || facts.owner_marks.size() > 1 ||
      (!facts.owner_marks.empty() && facts.owner_marks.front() != "1")) {
    return refuse(facts, PeerAuthErrc::malformed);
  }
  // The marker selects the scope the MAC must have been made for: adding it to
  // a captured store-only header, or dropping it from an owner fetch's, fails.
  const bool owner_fetch = !facts.owner_marks.empty();
  auto node = protocol::verify_peer_request(
      facts.auths.front(), facts.method, facts.target, facts.now, peer_secret,
      owner_fetch ? protocol::PeerAuthScope::owner_fetch : protocol::PeerAuthScope::store_only);
  if (!node) return refuse(facts, node.error());
  if (!facts.markers.empty() && facts.markers.front() != *node) {
    return refuse(facts, PeerAuthErrc::node_mismatch);
  }
  // Peers only ask for stored objects (docs/peers.md): a signed PURGE, CONNECT
  // or POST has no business bypassing the client allow-list.
  if (facts.method != "GET" && facts.method != "HEAD") {
    return refuse(facts, PeerAuthErrc::bad_method);
  }
  return {PeerRequestKind::verified_peer, std::move(node).value(), {}, owner_fetch};
}

}  // namespace sumcache::daemon
