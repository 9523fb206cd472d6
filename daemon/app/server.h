#pragma once
// The running daemon: the workers with their listeners, the shared state they
// serve from, and the control loop on the main thread that handles signals:
// SIGTERM/SIGINT drain in-flight requests (bounded by limits.drain_timeout_ms)
// and exit 0; SIGHUP reloads what can change live; SIGUSR1 reopens the logs.

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "daemon/admin/admin_server.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/session/worker.h"

namespace sumcache::daemon {

class Server {
 public:
  Server(config::Config config, std::filesystem::path config_path, Logger& log,
         AccessLog& access_log, CacheService* cache);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds every listener; a failure names the address and step, and nothing runs.
  bool start();
  // Blocks until a stop signal has drained the workers. Unblocks SIGTERM,
  // SIGINT, SIGHUP and SIGUSR1 in the calling thread once its handlers exist.
  void run();
  const std::vector<tcp::endpoint>& proxy_endpoints() const { return endpoints_; }
  // Called on the control thread after a SIGHUP applied a new config.
  // Any thread: who may connect to the peer object listener now (live membership).
  void set_peer_sources(std::optional<AccessList> sources);
  // Any thread: the peers' private listeners now, refused as proxy
  // destinations (live membership; the config's peers at start).
  void set_peer_listeners(PeerListeners listeners);
  void on_reload(std::function<void(const config::Config&)> hook) {
    reload_hook_ = std::move(hook);
  }
  // Called on the control thread when a stop signal starts the drain.
  void on_drain(std::function<void()> hook) { drain_hook_ = std::move(hook); }

 private:
  void reload();
  void drain_and_stop();
  bool start_admin();
  // With cluster.tls: the peer object listener on every worker, and the trust
  // store the workers' pools check peers' object listeners with.
  bool start_peer_objects();
  void publish_settings();
  // A listener's TLS state from its config; null (logged) when a file fails.
  // Its name is set once bound.
  std::shared_ptr<TlsListener> make_tls_listener(const config::ServerTlsConfig& tls, bool http2,
                                                 const std::string& field);
  // SIGHUP: every TLS listener's files read again; a failure keeps the old set.
  void reload_tls();

  config::Config config_;
  std::filesystem::path config_path_;
  Logger& log_;
  AccessLog& access_log_;
  asio::ssl::context tls_{asio::ssl::context::tls_client};
  asio::ssl::context peer_server_tls_{asio::ssl::context::tls_server};
  asio::ssl::context peer_client_tls_{asio::ssl::context::tls_client};
  std::optional<AccessList> peer_sources_;
  PeerListeners peer_listeners_;
  CacheService* cache_;  // null when nothing is cached
  ProxyShared shared_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<tcp::endpoint> endpoints_;
  std::vector<ListenerAddress> own_listeners_;  // refused as upstream destinations
  std::unique_ptr<AdminServer> admin_;          // null when admin.enabled is false
  // Per listen[] entry, null for a plain one; then the admin's when it has TLS.
  std::vector<std::shared_ptr<TlsListener>> listen_tls_;
  std::shared_ptr<TlsListener> admin_tls_;
  TlsListeners tls_listeners_;  // all of them, for /metrics
  asio::io_context control_;
  std::function<void(const config::Config&)> reload_hook_;
  std::function<void()> drain_hook_;
};

std::shared_ptr<const Settings> make_settings(const config::Config& config);
UpstreamTimeouts upstream_timeouts(const config::LimitsConfig& limits);

}  // namespace sumcache::daemon
