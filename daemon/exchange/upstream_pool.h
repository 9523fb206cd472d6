#pragma once
// Keep-alive connections to origins, one pool per worker thread (its own
// io_context), so a connection never crosses threads and the pool needs no
// lock. Connects with async DNS, a connect timeout and, for https, a TLS
// handshake verified against the configured trust store.
//
// An idle connection is watched, as nginx and Squid do: a readiness wait on
// its socket (which consumes nothing) fires when the origin closes it or sends
// bytes nobody asked for, and the connection is closed and leaves the pool at
// once. The socket is checked again, synchronously, when it is handed out and
// when it is returned, so that bytes that came before the wait was queued or
// after it fired are never read as the answer to another request.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemon/exchange/upstream_connection.h"
#include "daemon/log/log_limiter.h"
#include "daemon/log/logger.h"

namespace sumcache::daemon {

struct UpstreamTimeouts {
  std::chrono::milliseconds dns{5000};
  std::chrono::milliseconds connect{5000};
  std::chrono::milliseconds idle{60000};
  std::size_t max_idle_per_origin = 32;
};

struct UpstreamPoolStats {
  std::uint64_t connects = 0;
  std::uint64_t connect_failures = 0;
  std::uint64_t reuses = 0;
  std::uint64_t idle = 0;
  std::uint64_t idle_closed = 0;      // pooled connections the origin closed (or reset)
  std::uint64_t stray_discarded = 0;  // closed for bytes the origin sent unasked
  std::uint64_t fresh_retries = 0;    // requests sent again after a reused connection failed
};

class UpstreamPool {
 public:
  // Judges each resolved endpoint before any connect; an error refuses the
  // whole connect, with no connection attempted (docs/proxy.md, "Destinations").
  using EndpointCheck = std::function<error_code(const Origin&, const tcp::endpoint&)>;

  UpstreamPool(asio::any_io_executor executor, asio::ssl::context& tls, UpstreamTimeouts timeouts,
               Logger& log);
  UpstreamPool(const UpstreamPool&) = delete;
  UpstreamPool& operator=(const UpstreamPool&) = delete;

  // A pooled idle connection when one has been idle less than `max_idle` (and
  // the idle timeout) and is still clean, otherwise a new one. `reused` tells
  // the caller whether a failure before the first response byte may come from
  // the origin having closed it.
  awaitable<std::tuple<error_code, std::unique_ptr<UpstreamConnection>, bool>> acquire(
      const Origin& origin, std::string_view tls_server_name, std::chrono::milliseconds max_idle);
  awaitable<std::tuple<error_code, std::unique_ptr<UpstreamConnection>>> connect(
      const Origin& origin, std::string_view tls_server_name);
  // Returns a connection whose last exchange completed cleanly with keep-alive
  // and nothing left unread; it is closed instead when its socket is not clean.
  void release(std::unique_ptr<UpstreamConnection> connection);
  // Closes a connection on which `bytes` were read past the end of a response.
  void discard_stray(std::unique_ptr<UpstreamConnection> connection, std::size_t bytes,
                     std::string_view where);
  void count_retry() { ++stats_.fresh_retries; }
  void set_timeouts(const UpstreamTimeouts& timeouts) { timeouts_ = timeouts; }
  void set_endpoint_check(EndpointCheck check) { endpoint_check_ = std::move(check); }
  // The trust store for peers' object listeners (Origin::peer); without one
  // a TLS connect to a peer fails.
  void set_peer_tls(asio::ssl::context* tls) { peer_tls_ = tls; }
  UpstreamPoolStats stats() const;

 private:
  enum class SocketState { clean, closed, stray };
  static SocketState probe(UpstreamConnection& connection);
  void note_stray(const Origin& origin, std::size_t bytes, std::string_view where);
  // Counts and logs a connection that is not clean; false when it is clean.
  bool drop_if_unclean(UpstreamConnection& connection, SocketState state, std::string_view where);
  void watch(UpstreamConnection& connection, const std::string& key);
  void on_idle_ready(const std::string& key, std::uint64_t idle_period, error_code ec);
  awaitable<error_code> handshake(UpstreamConnection::Tls& stream, const Origin& origin,
                                  std::string_view server_name);

  asio::any_io_executor executor_;
  asio::ssl::context& tls_;
  asio::ssl::context* peer_tls_ = nullptr;
  UpstreamTimeouts timeouts_;
  Logger& log_;
  LogLimiter stray_log_;
  std::map<std::string, std::vector<std::unique_ptr<UpstreamConnection>>> idle_;
  UpstreamPoolStats stats_;
  EndpointCheck endpoint_check_;
  std::uint64_t next_idle_period_ = 0;
  // A watch that completes after the pool is gone finds this expired.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace sumcache::daemon
