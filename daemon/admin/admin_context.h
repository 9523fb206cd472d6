#pragma once
// What the admin listener's sessions share. Lives on the admin thread; only
// the sessions and the once-a-second sampler touch it.

#include <boost/intrusive/list.hpp>
#include <chrono>
#include <cstdint>
#include <vector>

#include "daemon/exchange/proxy_context.h"
#include "daemon/log/log_limiter.h"
#include "daemon/net/accept_loop.h"
#include "daemon/observe/rate_window.h"
#include "daemon/tls/tls_listener.h"

namespace sumcache::daemon {

class CacheService;
class PeerService;
class Worker;

// A session waiting on its client for a request (idle, or its head and body
// still arriving): the one the listener may close to admit a new connection
// at the cap. Linked in the order the waits began, so the front has waited longest.
struct AdminWaiting
    : boost::intrusive::list_base_hook<boost::intrusive::link_mode<boost::intrusive::auto_unlink>> {
  explicit AdminWaiting(beast::tcp_stream& s) : stream(s) {}
  beast::tcp_stream& stream;
};
using AdminWaitingList =
    boost::intrusive::list<AdminWaiting, boost::intrusive::constant_time_size<false>>;

struct AdminContext {
  AdminContext(ProxyShared& s, CacheService* c, std::vector<Worker*> w)
      : shared(s), cache(c), workers(std::move(w)) {}

  // Seconds since the daemon started, on the monotonic clock: the RateWindow's time.
  std::int64_t now_seconds() const {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() -
                                                            shared.started)
        .count();
  }

  // The peers, through the cache; null without a cluster.
  PeerService* peers() const;

  ProxyShared& shared;
  CacheService* cache;           // null when nothing is cached
  std::vector<Worker*> workers;  // their counters and upstream pools, for /stats
  RateWindow window{0};
  std::uint32_t sessions = 0;
  AdminWaitingList waiting;
  LogLimiter full_log;                          // "sessions at the cap", once a second at most
  std::uint64_t sessions_closed = 0;            // idle sessions closed to admit a new one
  AcceptCounters accept_failures;               // the admin listener's own, for /metrics
  TlsListener* tls = nullptr;                   // admin.tls: its handshakes and certificates
  const TlsListeners* tls_listeners = nullptr;  // every TLS listener, for /metrics
};

}  // namespace sumcache::daemon
