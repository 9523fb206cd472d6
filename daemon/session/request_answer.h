#pragma once
// Answers one request whatever protocol brought it (client_exchange.h), once
// that protocol's session has read its head and accepted its framing: peer
// verification, the allow-lists, then the tunnel, a purge, a digest, the
// cache or the plain forwarder; and the access log's line and the metrics
// for it afterwards.

#include <chrono>

#include "daemon/exchange/client_exchange.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/log/access_log.h"

namespace sumcache::daemon {

class CacheService;

// Returns the status sent. `cache`: null when nothing is cached.
// `peers_only`: the peer object listener, where anything but a verified peer
// request gets 403.
awaitable<unsigned> answer_request(WorkerContext& worker, CacheService* cache,
                                   const Settings& settings, ClientExchange& client,
                                   AccessRecord& record, bool peers_only);

// The request's part of its access log line: client, method, URL, version,
// User-Agent, Referer.
void fill_record(AccessRecord& record, const ClientExchange& client);

// The access log's line and the metrics for one finished exchange.
void log_exchange(WorkerContext& worker, AccessRecord& record, unsigned status,
                  const ClientExchange& client, std::chrono::steady_clock::time_point started);

// A refusal on the peer object listener: counted, and logged at most once a
// second with the number held back (a stranger probing the port cannot fill the log).
void note_peer_object_refusal(WorkerContext& worker, PeerObjectRefusal why,
                              const std::string& address, std::string_view what);

}  // namespace sumcache::daemon
