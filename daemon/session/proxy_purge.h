#pragma once
// The PURGE method on the proxy port, as Squid and Varnish take it: the
// request's target names the object (its cache key, as a GET would have it),
// every variant is removed here and on every peer, and the answer is 200
// {"purged": n, "key": k, "nodes": {...}} or 404 (docs/peers.md). Only
// clients in admin.allow may purge (403 for the rest), since anyone who may
// use the proxy is not thereby trusted to empty its cache; no token, because
// HTTP clients that send PURGE (varnishadm-style scripts, CDNs) rarely can.
// With the tag field (cache.tag_header, "Surrogate-Key") in the request, as
// Fastly and Varnish xkey take it, every object with one of its tags goes
// instead, here and on every peer: {"purged": n, "tag": "...", "nodes": {...}}.

#include "daemon/exchange/client_exchange.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/exchange/request_route.h"
#include "daemon/log/access_log.h"

namespace sumcache::daemon {

class CacheService;

// Returns the status sent.
awaitable<unsigned> serve_purge_method(WorkerContext& worker, CacheService* cache,
                                       const Settings& settings, ClientExchange& client,
                                       const Route& route, unsigned version, AccessRecord& record,
                                       std::string_view tags = {});

}  // namespace sumcache::daemon
