#include "daemon/session/worker.h"

#include <pthread.h>
#include <sched.h>

#include <future>

#include "daemon/exchange/client_connection.h"
#include "daemon/exchange/destination_guard.h"
#include "daemon/net/listener.h"
#include "daemon/session/client_session.h"

namespace sumcache::daemon {

unsigned usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? n : 1;
}

Worker::Worker(ProxyShared& shared, CacheService* cache, asio::ssl::context& tls,
               std::string tls_server_name, const UpstreamTimeouts& timeouts)
    : guard_(io_.get_executor()),
      pool_(io_.get_executor(), tls, timeouts, shared.log),
      context_{shared, io_.get_executor(), pool_, std::move(tls_server_name), {}, {}, {}},
      cache_(cache) {
  pool_.set_endpoint_check(destination_check(context_));
}

Worker::~Worker() { stop(); }

error_code Worker::listen(const tcp::endpoint& endpoint, tcp::endpoint& bound,
                          std::string& failed_step, asio::ssl::context* peer_objects,
                          TlsListener* tls, bool h2c) {
  auto acceptor = std::make_unique<tcp::acceptor>(io_);
  if (auto ec = open_acceptor(*acceptor, endpoint, true, failed_step)) return ec;
  error_code ec;
  bound = acceptor->local_endpoint(ec);
  if (ec) return failed_step = "getsockname", ec;
  std::string name = std::string(peer_objects != nullptr ? "peer object"
                                 : tls != nullptr        ? "proxy TLS"
                                                         : "proxy") +
                     " listener " + endpoint_text(bound);
  auto site =
      std::make_unique<AcceptSite>(std::move(name), context_.shared.log,
                                   peer_objects != nullptr ? peer_object_accepts_ : proxy_accepts_);
  acceptors_.push_back({std::move(acceptor), peer_objects, tls, h2c, std::move(site)});
  return {};
}

void Worker::start() {
  for (auto& acceptor : acceptors_) {
    asio::co_spawn(
        io_,
        accept_connections(*acceptor.acceptor, *acceptor.site,
                           [this, &acceptor](tcp::socket s) { admit(acceptor, std::move(s)); }),
        asio::detached);
  }
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "sc-worker");
    io_.run();
  });
}

void Worker::admit(const Acceptor& listener, tcp::socket socket) {
  ProxyShared& shared = context_.shared;
  const auto settings = shared.settings.get();
  if (shared.connections.load(std::memory_order_relaxed) >=
      settings->config.limits.max_connections) {
    context_.stats.refused_connections.fetch_add(1, std::memory_order_relaxed);
    // A fresh socket's send buffer takes this at once: no need to wait on it.
    static constexpr std::string_view kBody = "503 Service Unavailable: limits.max_connections\n";
    const std::string busy =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\n"
        "Content-Length: " +
        std::to_string(kBody.size()) + "\r\n\r\n" + std::string(kBody);
    error_code ignored;
    socket.write_some(asio::buffer(busy), ignored);
    return;
  }
  shared.connections.fetch_add(1, std::memory_order_relaxed);
  if (listener.peer_objects != nullptr) {
    asio::co_spawn(io_,
                   serve_peer_objects(context_, cache_, std::move(socket), *listener.peer_objects),
                   asio::detached);
  } else {
    asio::co_spawn(io_, serve_client(context_, cache_, std::move(socket), listener.tls, listener.h2c),
                   asio::detached);
  }
}

void Worker::begin_drain() {
  asio::post(io_, [this] {
    for (auto& listener : acceptors_) {
      error_code ignored;
      listener.acceptor->close(ignored);
    }
    for (ClientConnection& idle : context_.idle) idle.stream.cancel();
  });
}

void Worker::set_upstream_timeouts(const UpstreamTimeouts& timeouts) {
  asio::post(io_, [this, timeouts] { pool_.set_timeouts(timeouts); });
}

std::optional<UpstreamPoolStats> Worker::upstream_stats(std::chrono::milliseconds timeout) {
  auto promise = std::make_shared<std::promise<UpstreamPoolStats>>();
  auto answer = promise->get_future();
  asio::post(io_, [this, promise] { promise->set_value(pool_.stats()); });
  if (answer.wait_for(timeout) != std::future_status::ready) return std::nullopt;
  return answer.get();
}

void Worker::stop() {
  guard_.reset();
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace sumcache::daemon
