#pragma once
// Authentication of object requests between peers (docs/protocol.md, "Peer
// object requests"). The sender adds one header,
//   Sumcache-Peer-Auth: node=<id>; t=<unix seconds>; mac=<64 lowercase hex>
// where mac is HMAC-SHA256 keyed with the cluster secret (RFC 2104) over
//   "sumcache-peer-auth-v1\n" <method> "\n" <request-target> "\n" <t> "\n" <node>
// The receiver checks it before the store is touched. Pure: no sockets, no clock.

#include <cstdint>
#include <string>
#include <string_view>

#include "filters/result.h"
#include "protocol/decode.h"
#include "protocol/peer_auth_error.h"

namespace sumcache::protocol {

inline constexpr std::string_view kPeerAuthHeader = "Sumcache-Peer-Auth";
// How far t may lie from the receiver's clock, either way: covers clock skew
// (NTP keeps it to milliseconds) and a request's time in flight, and bounds
// how long a captured header can be replayed.
inline constexpr std::int64_t kPeerAuthWindowSeconds = 30;
// The longest value the grammar allows is 93 bytes plus whitespace around ";".
inline constexpr std::size_t kMaxPeerAuthBytes = 256;

// What the request asks of the receiver, bound into the MAC by its label, so
// that a header signed for one cannot be presented for the other:
//   store_only   "sumcache-peer-auth-v1\n": answer from the store alone;
//   owner_fetch  "sumcache-owner-fetch-v1\n": the receiver owns the key
//                (cluster.miss_policy "owner") and fetches a miss from the origin.
enum class PeerAuthScope { store_only, owner_fetch };

// Marks an owner fetch; its one value is "1". Its presence selects the
// owner_fetch scope at the receiver.
inline constexpr std::string_view kOwnerFetchHeader = "Sumcache-Owner-Fetch";

struct PeerAuthFields {
  std::string_view node;
  std::int64_t time = 0;
  std::string_view mac_hex;
};

// The bytes the MAC covers, as above; t in decimal without leading zeros.
std::string peer_auth_signed_bytes(std::string_view method, std::string_view target,
                                   std::int64_t time, std::string_view node,
                                   PeerAuthScope scope = PeerAuthScope::store_only);

// The header's value for this request; empty when node is not a valid node id,
// time is negative, or libcrypto fails.
std::string sign_peer_request(std::string_view method, std::string_view target,
                              std::string_view node, std::int64_t time, std::string_view secret,
                              PeerAuthScope scope = PeerAuthScope::store_only);

// Splits a header value by the grammar in docs/protocol.md: PeerAuthErrc::malformed
// on any deviation. The views point into `value`.
Result<PeerAuthFields> parse_peer_auth(std::string_view value);

// The node id the request was signed by, once the header parses, names a node
// secret_for knows, carries the MAC of this method and target (compared in
// constant time) and a t within kPeerAuthWindowSeconds of now. Otherwise the
// PeerAuthErrc, checked in that order.
Result<std::string> verify_peer_request(std::string_view value, std::string_view method,
                                        std::string_view target, std::int64_t now,
                                        const SecretLookup& secret_for,
                                        PeerAuthScope scope = PeerAuthScope::store_only);

}  // namespace sumcache::protocol
