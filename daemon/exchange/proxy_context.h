#pragma once
// What the request path can reach: the process-wide shared state (config
// snapshot, logs, drain flag) and its own worker's state (upstream pool,
// counters). No globals: the Server owns all. Counters live per worker, so
// the data path touches no cache line another worker writes; the admin sums
// them when it is read (daemon/admin/stats_collect.cc).

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "config/config.h"
#include "daemon/exchange/client_connection.h"
#include "daemon/exchange/upstream_pool.h"
#include "daemon/log/access_log.h"
#include "daemon/log/log_limiter.h"
#include "daemon/log/logger.h"
#include "daemon/net/cidr.h"
#include "daemon/net/destination_policy.h"
#include "daemon/observe/proxy_stats.h"
#include "daemon/observe/request_metrics.h"

namespace sumcache::daemon {

// Everything SIGHUP may replace, swapped as one immutable snapshot.
struct Settings {
  config::Config config;
  AccessList clients;
  AccessList admin_clients;  // admin.allow: the admin listener and the PURGE method
  std::string via;           // our Via member, "1.1 <node-id>"
  std::string via_10;        // "1.0 <node-id>", for messages received as HTTP/1.0
  std::string via_20;        // "2 <node-id>", for requests received as HTTP/2
  // RFC 9110 §7.6.3: the member names the version the message was received with.
  const std::string& via_for(unsigned version) const {
    return version == 10 ? via_10 : version == 20 ? via_20 : via;
  }
  AccessList deny_destinations;  // access.deny_destinations
  OwnListeners own_listeners;    // filled by the Server once its listeners are bound
  // The peers' private listeners, refused as destinations like our own: the
  // Server fills them from the config at start and from the peer layer each
  // time the peers change (daemon/peer/peer_listeners.h).
  PeerListeners peer_listeners;
  // The proxy listeners alone (and the interface addresses): where a Squid
  // sibling fetches this node's digest (exchange/squid_digest_target.h).
  OwnListeners proxy_listeners;
  // Who may connect to the peer object listener: cluster.peer_allow, or the
  // peers' addresses; nullopt accepts any (a peer's name did not resolve).
  std::optional<AccessList> peer_sources;
};

class SettingsHolder {
 public:
  explicit SettingsHolder(std::shared_ptr<const Settings> s) : current_(std::move(s)) {}
  std::shared_ptr<const Settings> get() const {
    std::lock_guard lock(mutex_);
    return current_;
  }
  void set(std::shared_ptr<const Settings> s) {
    std::lock_guard lock(mutex_);
    current_ = std::move(s);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Settings> current_;
};

struct ProxyShared {
  ProxyShared(std::shared_ptr<const Settings> s, Logger& l, AccessLog& a)
      : settings(std::move(s)), log(l), access_log(a) {}

  SettingsHolder settings;
  Logger& log;
  AccessLog& access_log;
  LogLimiter truncated_log;  // bodies cut short upstream (response_relay.cc)
  std::atomic<bool> draining{false};
  std::atomic<std::uint32_t> connections{0};
  LogLimiter peer_auth_log;            // refused peer requests: a line per second at most
  LogLimiter framing_log;              // requests refused for their framing: one line per second
  LogLimiter peer_object_log;          // refusals on the peer object listener
  LogLimiter owner_fallback_log;       // owner fetches that went to the origin
  std::atomic<bool> listening{false};  // every proxy listener is accepting
  // Degraded paths, each logged once a second at most with the count held back.
  LogLimiter refused_destination_log;
  LogLimiter bad_gateway_log;      // upstream failures answered with 502
  LogLimiter gateway_timeout_log;  // and with 504
  LogLimiter fill_log;             // fills the store refused (cache/store_on_fill.h)
  LogLimiter targeted_log;         // invalid targeted fields (cache/invalid_targeted_field.h)
  LogLimiter tls_log;              // failed TLS handshakes and plain HTTP on TLS listeners
  const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

struct WorkerContext {
  ProxyShared& shared;
  asio::any_io_executor executor;
  UpstreamPool& pool;
  std::string tls_server_name;  // reverse mode: SNI and verified name for the origin
  IdleConnections idle;         // waiting for a request: closed at once on drain
  // This worker's counters: written by its thread only, read by the admin.
  ProxyStats stats;
  RequestMetrics metrics;
};

}  // namespace sumcache::daemon
