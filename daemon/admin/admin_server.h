#pragma once
// The admin listener (default 127.0.0.1:3129), apart from proxy traffic: its
// own thread and io_context, so that stats requests never run on a proxy
// worker. Endpoints and fields: docs/admin.md.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "daemon/admin/admin_context.h"
#include "daemon/net/asio.h"

namespace sumcache::daemon {

class AdminServer {
 public:
  AdminServer(ProxyShared& shared, CacheService* cache, std::vector<Worker*> workers);
  ~AdminServer();
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  // Binds (port 0: the kernel's choice); a failure says which step failed,
  // and the caller stops startup.
  error_code listen(const tcp::endpoint& endpoint, tcp::endpoint& bound, std::string& failed_step);
  // Before start: admin.tls (null: plain HTTP), and every TLS listener of
  // the process for /metrics.
  void set_tls(TlsListener* tls, const TlsListeners* all) {
    context_.tls = tls;
    context_.tls_listeners = all;
  }
  void start();
  // From any thread: close the listener and every session, then join.
  void stop();

 private:
  void admit(tcp::socket socket);
  awaitable<void> sample_loop();

  // Held by pointer so that the destructor can end the loop, and with it the
  // sessions that refer to context_, while context_ is still alive.
  std::unique_ptr<asio::io_context> io_;
  std::unique_ptr<tcp::acceptor> acceptor_;
  AdminContext context_;
  std::unique_ptr<AcceptSite> accept_site_;  // set by listen
  std::thread thread_;
};

}  // namespace sumcache::daemon
