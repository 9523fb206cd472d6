#pragma once
// Serves one client connection: reads requests one at a time (pipelined ones
// wait in the buffer and are answered in order), enforces the limits with a
// clear status (400, 408, 413, 431), checks access, and hands each request to
// the tunnel, the cache or the plain forwarder.

#include "daemon/exchange/proxy_context.h"
#include "daemon/tls/tls_listener.h"

namespace sumcache::daemon {

class CacheService;

// `cache`: null when nothing is cached. `tls`: the listener's TLS state when
// it speaks HTTPS (tls_accept.h), else null; HTTP/2 when ALPN chose h2.
// `h2c`: a plain listener that takes prior-knowledge HTTP/2 (docs/http2.md).
awaitable<void> serve_client(WorkerContext& worker, CacheService* cache, tcp::socket socket,
                             TlsListener* tls, bool h2c);
// A connection to the peer object listener: the TLS handshake with the cluster
// certificate, then the same session serving verified peer requests only
// (docs/peers.md, "TLS for object requests").
awaitable<void> serve_peer_objects(WorkerContext& worker, CacheService* cache, tcp::socket socket,
                                   asio::ssl::context& tls);

}  // namespace sumcache::daemon
