#pragma once
// A worker thread: its own io_context, its own SO_REUSEPORT acceptor on every
// proxy listener, and its own upstream pool. Connections stay on the thread
// that accepted them; nothing on the data path takes a cross-thread lock.

#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "daemon/proxy/proxy_context.h"

namespace sumcache::daemon {

class Worker {
 public:
  Worker(ProxyShared& shared, asio::ssl::context& tls, std::string tls_server_name,
         const UpstreamTimeouts& timeouts);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker();

  // Binds to `endpoint` (port 0 takes the kernel's choice); returns the bound endpoint.
  error_code listen(const tcp::endpoint& endpoint, tcp::endpoint& bound, std::string& failed_step);
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

 private:
  awaitable<void> accept_loop(tcp::acceptor& acceptor);

  asio::io_context io_{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  UpstreamPool pool_;
  WorkerContext context_;
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors_;
  std::thread thread_;
};

// Threads the process may run on (honours taskset and cgroup CPU masks).
unsigned usable_cores();

}  // namespace sumcache::daemon
