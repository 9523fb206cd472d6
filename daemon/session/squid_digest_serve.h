#pragma once
// Answers a request for this node's own Squid digest on the proxy port
// (docs/interop.md, "sumcache as a Squid digest sibling"): the decision is
// squid_digest_reply's, the bytes the SquidDigestService's current snapshot.

#include "daemon/exchange/client_exchange.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/log/access_log.h"

namespace sumcache::daemon {

class SquidDigestService;

// Returns the status sent.
awaitable<unsigned> serve_squid_digest(SquidDigestService& digest, const Settings& settings,
                                       ClientExchange& client,
                                       const beast::http::request_header<>& req,
                                       AccessRecord& record);

}  // namespace sumcache::daemon
