#pragma once
// Serves one client connection: reads requests one at a time (pipelined ones
// wait in the buffer and are answered in order), enforces the limits with a
// clear status (400, 408, 413, 431), checks access, and hands each request to
// the tunnel, the cache or the plain forwarder.

#include "daemon/proxy/proxy_context.h"

namespace sumcache::daemon {

awaitable<void> serve_client(WorkerContext& worker, tcp::socket socket);

}  // namespace sumcache::daemon
