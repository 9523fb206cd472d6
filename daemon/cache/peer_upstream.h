#pragma once
// How a node asks a peer for an object: the request head (the absolute URI,
// the peer marker, Sumcache-Peer-Auth signed for its scope), where it goes
// (the proxy port, or the object listener with cluster.tls) and how long it
// may take. Shared by the summary lookup (peer_fetch.cc) and the owner fetch
// (owner_fetch.cc). Private to daemon/cache.

#include <string>

#include "daemon/cache/cache_request.h"
#include "daemon/exchange/origin.h"
#include "protocol/peer_auth.h"

namespace sumcache::daemon {

class PeerService;

// store_only: with only-if-cached (RFC 9111 §5.2.1.7), the peer answers from
// its store or 504. owner_fetch: with Sumcache-Owner-Fetch instead, the owner
// serves it as a miss of its own, from the origin if need be.
beast::http::request_header<> peer_request_head(const CacheRequest& r, const std::string& node_id,
                                                protocol::PeerAuthScope scope);

// To a Squid peer (docs/interop.md): the same request with only-if-cached,
// and none of sumcache's peer fields: Sumcache-Peer-Auth is signed for our
// peers only, and a Squid has no use for the peer marker.
beast::http::request_header<> squid_request_head(const CacheRequest& r);

// The last X-Cache field of a peer's answer (the asked peer's own), or "".
std::string_view last_x_cache(const beast::http::response<beast::http::buffer_body>& msg);

// A Squid peer (which has no object listener) is reached on its http_port, TLS or not.
Origin peer_origin(const config::Config& config, const config::PeerConfig& peer);

// The upstream limits of a request to a peer, whose answer's first byte must
// come within `first_byte`.
config::LimitsConfig peer_limits(const config::Config& config,
                                 std::chrono::milliseconds first_byte);

// While a tag purge of this node's stands (some peer has not acknowledged
// it), a peer's or an owner's copy whose tag field names a purged tag, or
// names more tags than this node indexes, is refused: this node cannot know
// the tags of an object it does not hold, so it checks the copy's (docs/peers.md).
bool purged_by_tag(const PeerService& peers, const config::CacheConfig& cache,
                   const beast::http::response<beast::http::buffer_body>& msg);

}  // namespace sumcache::daemon
