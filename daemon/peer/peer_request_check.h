#pragma once
// Whether a request on the proxy port comes from a peer (docs/peers.md,
// "Authenticated object requests"). With a cluster secret, a request that
// carries the peer marker or Sumcache-Peer-Auth must verify
// (protocol/peer_auth.h) or is refused before the store is touched; a verified
// one is answered from the store alone and needs no place in
// access.allow_clients. Without a secret the marker is taken at its word, as
// before: loop prevention only, and the client allow-list applies. A verified
// request that also carries Sumcache-Owner-Fetch, signed for that scope, is an
// owner fetch (cluster.miss_policy "owner"): the one kind of peer request that
// may reach the origin. Pure.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "protocol/decode.h"

namespace sumcache::daemon {

enum class PeerRequestKind {
  client,          // neither header: an ordinary client request
  unchecked_peer,  // the marker with no cluster secret: today's trust, the allow-list applies
  verified_peer,   // a valid Sumcache-Peer-Auth from a configured peer
  refused,         // 403 with `reason`
};

struct PeerRequestFacts {
  std::string_view method;
  std::string_view target;                    // the request-target as received
  std::span<const std::string_view> markers;  // every X-Sumcache-Peer value
  std::span<const std::string_view> auths;    // every Sumcache-Peer-Auth value
  std::int64_t now = 0;                       // Unix seconds
  std::span<const std::string_view> owner_marks{};  // every Sumcache-Owner-Fetch value
};

struct PeerRequestCheck {
  PeerRequestKind kind = PeerRequestKind::client;
  // verified_peer: the node; refused: the node the request claims to be, when
  // a header names a valid node id, else "?" (safe to log as it is).
  std::string node;
  std::error_code reason;  // a protocol::PeerAuthErrc when refused
  bool owner_fetch = false;  // verified_peer: signed as an owner fetch
};

// `secret` is the cluster secret ("" when none); `peer_secret` knows the
// configured peers' ids.
PeerRequestCheck check_peer_request(const PeerRequestFacts& facts, std::string_view secret,
                                    const protocol::SecretLookup& peer_secret);

}  // namespace sumcache::daemon
