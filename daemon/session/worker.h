#pragma once
// A worker thread: its own io_context, its own SO_REUSEPORT acceptor on every
// proxy listener, and its own upstream pool. Connections stay on the thread
// that accepted them; nothing on the data path takes a cross-thread lock.

#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "daemon/exchange/proxy_context.h"
#include "daemon/net/accept_loop.h"
#include "daemon/tls/tls_listener.h"

namespace sumcache::daemon {

class CacheService;

class Worker {
 public:
  // `cache`: null when nothing is cached.
  Worker(ProxyShared& shared, CacheService* cache, asio::ssl::context& tls,
         std::string tls_server_name, const UpstreamTimeouts& timeouts);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker();

  // Binds to `endpoint` (port 0 takes the kernel's choice); returns the bound
  // endpoint. With `peer_objects`, the peer object listener speaking TLS with
  // it; with `tls`, a proxy listener speaking HTTPS (docs/tls.md).
  error_code listen(const tcp::endpoint& endpoint, tcp::endpoint& bound, std::string& failed_step,
                    asio::ssl::context* peer_objects = nullptr, TlsListener* tls = nullptr,
                    bool h2c = false);
  // Before start: the trust store for peers' object listeners (cluster.tls).
  void set_peer_tls(asio::ssl::context* tls) { pool_.set_peer_tls(tls); }
  void start();
  // From any thread: stop accepting and close connections that wait idle.
  void begin_drain();
  // From any thread: stop the loop, then join.
  void stop();
  // From any thread: new upstream timeouts after a reload.
  void set_upstream_timeouts(const UpstreamTimeouts& timeouts);
  // From another thread: the pool's figures, read on this worker's thread;
  // nullopt when it does not answer within `timeout` (stopped or busy).
  std::optional<UpstreamPoolStats> upstream_stats(std::chrono::milliseconds timeout);
  // From any thread: this worker's counters are read through it (relaxed loads).
  const WorkerContext& context() const { return context_; }
  // From any thread: failed accepts on this worker's proxy and peer object listeners.
  AcceptCounts proxy_accept_failures() const { return proxy_accepts_.snapshot(); }
  AcceptCounts peer_object_accept_failures() const { return peer_object_accepts_.snapshot(); }

 private:
  struct Acceptor {
    std::unique_ptr<tcp::acceptor> acceptor;
    asio::ssl::context* peer_objects = nullptr;
    TlsListener* tls = nullptr;
    bool h2c = false;  // prior-knowledge HTTP/2 on a plain listener
    std::unique_ptr<AcceptSite> site;
  };
  void admit(const Acceptor& listener, tcp::socket socket);

  asio::io_context io_{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  UpstreamPool pool_;
  WorkerContext context_;
  CacheService* cache_;
  AcceptCounters proxy_accepts_;
  AcceptCounters peer_object_accepts_;
  std::vector<Acceptor> acceptors_;
  std::thread thread_;
};

// Threads the process may run on (honours taskset and cgroup CPU masks).
unsigned usable_cores();

}  // namespace sumcache::daemon
