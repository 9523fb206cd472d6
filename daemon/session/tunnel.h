#pragma once
// CONNECT tunnels (RFC 9110 §9.3.6): after a 200 the proxy copies bytes both
// ways until either side closes or the tunnel is idle past its timeout.

#include "daemon/exchange/client_exchange.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/exchange/request_route.h"

namespace sumcache::daemon {

// Returns the status sent to the client (200, or 502/504 when the
// destination could not be reached).
awaitable<unsigned> run_tunnel(WorkerContext& worker, const Settings& settings,
                               ClientExchange& client, const Route& route);

}  // namespace sumcache::daemon
