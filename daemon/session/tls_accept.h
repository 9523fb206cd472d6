#pragma once
// The start of a connection on a TLS listener (docs/tls.md): its first byte
// tells a TLS ClientHello (a handshake record, 0x16) from a plain HTTP
// request, which gets a 400 saying the port speaks TLS instead of a hang;
// then the handshake, bounded by limits.client_request_timeout_ms. Each
// outcome is counted on the listener; failures are logged once a second at
// most with the number held back.

#include <optional>

#include "daemon/exchange/client_stream.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/tls/tls_listener.h"

namespace sumcache::daemon {

struct TlsAccepted {
  ClientStream stream;
  std::shared_ptr<const ServerTls> hold;  // the certificates the handshake used
};

// nullopt when the connection ends here (answered, failed or timed out).
awaitable<std::optional<TlsAccepted>> accept_tls(ProxyShared& shared, TlsListener& listener,
                                                 tcp::socket socket);

}  // namespace sumcache::daemon
