#pragma once
// The proxy port's side of peer authentication (docs/peers.md, "Authenticated
// object requests"): reads a request's peer marker and Sumcache-Peer-Auth
// fields for check_peer_request, and refuses what does not verify with a 403
// naming the reason, a count per reason in /metrics and a log line at most
// once per second (with how many were held back).

#include "daemon/exchange/client_exchange.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/peer/peer_request_check.h"

namespace sumcache::daemon {

class PeerService;

// `peers`: the cluster's live table, null without one (then config.peers).
PeerRequestCheck check_peer_headers(const Settings& settings,
                                    const beast::http::request_header<>& req,
                                    const PeerService* peers);

// Sends the 403 for a refused check; returns the status sent.
awaitable<unsigned> refuse_peer_request(WorkerContext& worker, const Settings& settings,
                                        ClientExchange& client, const PeerRequestCheck& check,
                                        unsigned version);

}  // namespace sumcache::daemon
