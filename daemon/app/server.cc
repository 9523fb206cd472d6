#include "daemon/app/server.h"

#include <csignal>
#include <thread>

#include "config/load_config.h"
#include "config/reload.h"
#include "daemon/http/hop_by_hop.h"
#include "daemon/net/address_bytes.h"
#include "daemon/net/listener.h"
#include "daemon/net/local_addresses.h"
#include "daemon/peer/cluster_tls.h"
#include "daemon/peer/peer_listeners.h"
#include "daemon/peer/peer_service.h"
#include "daemon/peer/peer_sources.h"

namespace sumcache::daemon {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

LogLevel to_log_level(config::LogLevel level) { return static_cast<LogLevel>(level); }

ListenerAddress listener_address(const tcp::endpoint& endpoint) {
  return {ip6_bytes(endpoint.address()), endpoint.port()};
}

// The peer listener or the ICP socket, as PeerService binds them (run_daemon
// starts it only with peers); ports as configured, which the cluster needs fixed.
std::vector<ListenerAddress> cluster_listeners(const config::Config& config) {
  const auto& c = config.cluster;
  if (!runs_cluster(config)) return {};
  error_code ec;
  const auto address = asio::ip::make_address(c.peer_listen.address, ec);
  if (ec) return {};
  const auto port = c.sharing == config::Sharing::summary ? c.peer_listen.port : c.icp_port;
  return {listener_address(tcp::endpoint(address, port))};
}

// A CA file the config names must load (docs/style.md, "Error policy"): an origin
// verified against nothing would fail every https exchange instead.
bool configure_tls(asio::ssl::context& tls, const config::Config& config, Logger& log) {
  const auto& t = config.reverse.tls;
  error_code ec;
  if (!t.ca_file.empty()) {
    tls.load_verify_file(t.ca_file.string(), ec);
    if (ec) {
      log.error("reverse.tls.ca_file " + t.ca_file.string() + ": " + ec.message());
      return false;
    }
  } else {
    tls.set_default_verify_paths(ec);
  }
  tls.set_verify_mode(t.verify ? asio::ssl::verify_peer : asio::ssl::verify_none);
  return true;
}

}  // namespace

std::shared_ptr<const Settings> make_settings(const config::Config& config) {
  auto settings = std::make_shared<Settings>();
  settings->config = config;
  // The config loader has validated every entry, so build cannot fail here.
  AccessList::build(config.access.allow_clients, settings->clients);
  AccessList::build(config.admin.allow, settings->admin_clients);
  AccessList::build(config.access.deny_destinations, settings->deny_destinations);
  settings->via = via_entry("1.1", config.node.id);
  settings->via_10 = via_entry("1.0", config.node.id);
  settings->via_20 = via_entry("2", config.node.id);
  return settings;
}

UpstreamTimeouts upstream_timeouts(const config::LimitsConfig& limits) {
  return {limits.dns_timeout_ms, limits.upstream_connect_timeout_ms,
          limits.upstream_idle_timeout_ms, limits.upstream_max_idle_per_origin};
}

Server::Server(config::Config config, std::filesystem::path config_path, Logger& log,
               AccessLog& access_log, CacheService* cache)
    : config_(std::move(config)),
      config_path_(std::move(config_path)),
      log_(log),
      access_log_(access_log),
      cache_(cache),
      shared_(make_settings(config_), log, access_log) {}

Server::~Server() {
  if (admin_) admin_->stop();
  for (auto& worker : workers_) worker->stop();
}

bool Server::start() {
  if (!configure_tls(tls_, config_, log_)) return false;
  const unsigned count = config_.workers != 0 ? config_.workers : usable_cores();
  const std::string sni = config_.reverse.tls.server_name.empty() ? config_.reverse.origin.host
                                                                  : config_.reverse.tls.server_name;
  for (unsigned i = 0; i < count; ++i) {
    workers_.push_back(
        std::make_unique<Worker>(shared_, cache_, tls_, sni, upstream_timeouts(config_.limits)));
  }
  for (std::size_t i = 0; i < config_.listen.size(); ++i) {
    const auto& listen = config_.listen[i];
    error_code ec;
    tcp::endpoint endpoint(asio::ip::make_address(listen.address, ec), listen.port);
    std::shared_ptr<TlsListener> tls;
    if (listen.tls) {
      tls = make_tls_listener(*listen.tls, listen.http2,
                              "listen[" + std::to_string(i) + "].tls");
      if (!tls) return false;
    }
    listen_tls_.push_back(tls);
    for (auto& worker : workers_) {
      tcp::endpoint bound;
      std::string step;
      if ((ec = worker->listen(endpoint, bound, step, nullptr, tls.get(), listen.h2c))) {
        log_.error("cannot listen on " + listen.address + ":" + std::to_string(endpoint.port()) +
                   " (" + step + "): " + ec.message());
        return false;
      }
      endpoint = bound;  // port 0: the other workers join the port the first one got
    }
    if (tls) tls->set_name(endpoint_text(endpoint));
    endpoints_.push_back(endpoint);
    own_listeners_.push_back(listener_address(endpoint));
    log_.info("proxy listening on " + endpoint.address().to_string() + ":" +
              std::to_string(endpoint.port()) + " (" + (tls ? "TLS, " : "") +
              std::to_string(count) + " workers, " +
              (config_.mode == config::Mode::forward ? "forward" : "reverse") + " mode)");
  }
  if (!start_admin()) return false;
  if (!start_peer_objects()) return false;
  for (const auto& listener : cluster_listeners(config_)) own_listeners_.push_back(listener);
  // Before the first request: later changes of peers come from the peer layer.
  peer_listeners_ =
      peer_listeners(control_.get_executor(), config_.peers, config_.admin.port, log_);
  publish_settings();
  for (auto& worker : workers_) worker->start();
  shared_.listening = true;
  if (admin_) admin_->start();
  return true;
}

// Binds the admin listener before any worker runs: a failed bind stops startup.
bool Server::start_admin() {
  const auto& admin = config_.admin;
  if (!admin.enabled) return true;
  std::vector<Worker*> workers;
  for (auto& worker : workers_) workers.push_back(worker.get());
  admin_ = std::make_unique<AdminServer>(shared_, cache_, std::move(workers));
  if (admin.tls) {
    admin_tls_ = make_tls_listener(*admin.tls, false, "admin.tls");
    if (!admin_tls_) return false;
  }
  admin_->set_tls(admin_tls_.get(), &tls_listeners_);
  error_code ec;
  tcp::endpoint endpoint(asio::ip::make_address(admin.address, ec), admin.port);
  tcp::endpoint bound;
  std::string step;
  if (ec || (ec = admin_->listen(endpoint, bound, step))) {
    log_.error("cannot listen on admin " + admin.address + ":" + std::to_string(admin.port) + " (" +
               (step.empty() ? "address" : step) + "): " + ec.message());
    return false;
  }
  if (admin_tls_) admin_tls_->set_name(endpoint_text(bound));
  log_.info("admin listening on " + bound.address().to_string() + ":" +
            std::to_string(bound.port()) + (admin_tls_ ? " (TLS)" : ""));
  own_listeners_.push_back(listener_address(bound));
  return true;
}

bool Server::start_peer_objects() {
  const auto& c = config_.cluster;
  if (!runs_cluster(config_) || !c.tls.enabled) return true;
  std::string failed;
  if (!load_cluster_tls(peer_server_tls_, peer_client_tls_, c.tls, failed)) {
    log_.error(failed);
    return false;
  }
  error_code ec;
  tcp::endpoint endpoint(asio::ip::make_address(c.object_listen.address, ec), c.object_listen.port);
  for (auto& worker : workers_) {
    tcp::endpoint bound;
    std::string step;
    if (ec || (ec = worker->listen(endpoint, bound, step, &peer_server_tls_))) {
      log_.error("cannot listen on peer objects " + c.object_listen.address + ":" +
                 std::to_string(c.object_listen.port) + " (" + (step.empty() ? "address" : step) +
                 "): " + ec.message());
      return false;
    }
    worker->set_peer_tls(&peer_client_tls_);
    endpoint = bound;
  }
  own_listeners_.push_back(listener_address(endpoint));
  peer_sources_ =
      peer_sources(control_.get_executor(), c, config_.peers, log_, "peer object listener");
  log_.info("peer objects listening on " + endpoint.address().to_string() + ":" +
            std::to_string(endpoint.port()) + " (TLS)");
  return true;
}

std::shared_ptr<TlsListener> Server::make_tls_listener(const config::ServerTlsConfig& tls,
                                                       bool http2, const std::string& field) {
  std::string failed;
  auto set = ServerTls::build(tls, http2, failed);
  if (!set) {
    log_.error(field + "." + failed);
    return nullptr;
  }
  auto listener = std::make_shared<TlsListener>(std::string(), std::move(set), http2);
  tls_listeners_.listeners.push_back(listener);
  return listener;
}

void Server::reload_tls() {
  const auto reload = [&](TlsListener& listener, const config::ServerTlsConfig& tls,
                          const std::string& field) {
    std::string failed;
    if (listener.reload(tls, failed)) {
      tls_listeners_.reloads_ok.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    tls_listeners_.reloads_failed.fetch_add(1, std::memory_order_relaxed);
    log_.error("SIGHUP: " + field + "." + failed + "; keeping the certificates loaded before");
  };
  for (std::size_t i = 0; i < listen_tls_.size() && i < config_.listen.size(); ++i) {
    if (listen_tls_[i] && config_.listen[i].tls) {
      reload(*listen_tls_[i], *config_.listen[i].tls, "listen[" + std::to_string(i) + "].tls");
    }
  }
  if (admin_tls_ && config_.admin.tls) reload(*admin_tls_, *config_.admin.tls, "admin.tls");
}

void Server::set_peer_sources(std::optional<AccessList> sources) {
  asio::post(control_, [this, sources = std::move(sources)]() mutable {
    if (!config_.cluster.tls.enabled) return;  // no object listener to guard
    peer_sources_ = std::move(sources);
    publish_settings();
  });
}

void Server::set_peer_listeners(PeerListeners listeners) {
  asio::post(control_, [this, listeners = std::move(listeners)]() mutable {
    peer_listeners_ = std::move(listeners);
    publish_settings();
  });
}

// The settings with what only the running server knows: its bound listeners
// and the interface addresses, enumerated again on each reload.
void Server::publish_settings() {
  auto settings = std::make_shared<Settings>(*make_settings(config_));
  settings->own_listeners.listeners = own_listeners_;
  settings->peer_sources = peer_sources_;
  settings->peer_listeners = peer_listeners_;
  std::error_code ec;
  settings->own_listeners.local_addresses = local_addresses(ec);
  for (const auto& endpoint : endpoints_) {
    settings->proxy_listeners.listeners.push_back(listener_address(endpoint));
  }
  settings->proxy_listeners.local_addresses = settings->own_listeners.local_addresses;
  if (ec) {
    log_.warn("cannot list the interface addresses (" + ec.message() +
              "): wildcard listeners are guarded on loopback only");
  }
  shared_.settings.set(std::move(settings));
}

void Server::run() {
  asio::signal_set stop_signals(control_, SIGTERM, SIGINT);
  asio::signal_set hup(control_, SIGHUP);
  asio::signal_set usr1(control_, SIGUSR1);
  bool stopping = false;
  stop_signals.async_wait([&](error_code ec, int signal) {
    if (ec) return;
    log_.info(std::string("received ") + (signal == SIGTERM ? "SIGTERM" : "SIGINT") + ": draining");
    stopping = true;
    hup.cancel();
    usr1.cancel();
  });
  std::function<void(error_code, int)> on_hup = [&](error_code ec, int) {
    if (ec) return;
    reload();
    hup.async_wait(on_hup);
  };
  std::function<void(error_code, int)> on_usr1 = [&](error_code ec, int) {
    if (ec) return;
    if (auto e = log_.reopen()) log_.error("reopening the error log: " + e.message());
    if (auto e = access_log_.reopen()) log_.error("reopening the access log: " + e.message());
    log_.info("logs reopened");
    usr1.async_wait(on_usr1);
  };
  hup.async_wait(on_hup);
  usr1.async_wait(on_usr1);
  // run_daemon blocked these signals before start(). Unblocking them only now
  // keeps one sent during startup pending until a handler is here to take it;
  // before, it could arrive with the default action and kill the process.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&signals, s);
  pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
  while (!stopping) control_.run_one();
  drain_and_stop();
}

void Server::drain_and_stop() {
  shared_.draining = true;
  if (drain_hook_) drain_hook_();
  for (auto& worker : workers_) worker->begin_drain();
  const auto deadline = std::chrono::steady_clock::now() + config_.limits.drain_timeout_ms;
  while (shared_.connections.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const auto left = shared_.connections.load();
  if (left > 0) log_.warn(std::to_string(left) + " connections still open at the drain deadline");
  if (admin_) admin_->stop();
  for (auto& worker : workers_) worker->stop();
  log_.info("stopped");
}

void Server::reload() {
  if (config_path_.empty()) {
    log_.warn("SIGHUP: running on the embedded default config; nothing to reload");
    return;
  }
  config::Config next;
  try {
    next = config::load_config_file(config_path_);
  } catch (const std::exception& e) {
    log_.error(std::string("SIGHUP: config not reloaded: ") + e.what());
    return;
  }
  const auto restart = config::restart_required_changes(config_, next);
  config_ = config::apply_live(config_, next);
  reload_tls();
  publish_settings();
  log_.set_level(to_log_level(config_.log.level));
  if (reload_hook_) reload_hook_(config_);
  access_log_.set_format(config_.log.access_format);
  for (auto& worker : workers_) worker->set_upstream_timeouts(upstream_timeouts(config_.limits));
  log_.info("SIGHUP: reloaded access rules, limits and log settings" +
            (restart.empty() ? std::string() : "; needs a restart to apply: " + join(restart)));
}

}  // namespace sumcache::daemon
