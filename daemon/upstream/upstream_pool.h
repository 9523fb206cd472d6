#pragma once
// Keep-alive connections to origins, one pool per worker thread (its own
// io_context), so a connection never crosses threads and the pool needs no
// lock. Connects with async DNS, a connect timeout and, for https, a TLS
// handshake verified against the configured trust store.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "daemon/upstream/upstream_connection.h"

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
};

class UpstreamPool {
 public:
  // Judges each resolved endpoint before any connect; an error refuses the
  // whole connect, with no connection attempted (docs/proxy.md, "Destinations").
  using EndpointCheck = std::function<error_code(const Origin&, const tcp::endpoint&)>;

  UpstreamPool(asio::any_io_executor executor, asio::ssl::context& tls, UpstreamTimeouts timeouts);

  // A pooled idle connection when one is fresh, otherwise a new one.
  // `reused` tells the caller whether a failure before the first response
  // byte may be retried on a fresh connection (the origin may have closed it).
  awaitable<std::tuple<error_code, std::unique_ptr<UpstreamConnection>, bool>> acquire(
      const Origin& origin, std::string_view tls_server_name);
  awaitable<std::tuple<error_code, std::unique_ptr<UpstreamConnection>>> connect(
      const Origin& origin, std::string_view tls_server_name);
  // Returns a connection whose last exchange completed cleanly with keep-alive.
  void release(std::unique_ptr<UpstreamConnection> connection);
  void set_timeouts(const UpstreamTimeouts& timeouts) { timeouts_ = timeouts; }
  void set_endpoint_check(EndpointCheck check) { endpoint_check_ = std::move(check); }
  UpstreamPoolStats stats() const;

 private:
  awaitable<error_code> handshake(UpstreamConnection::Tls& stream, const Origin& origin,
                                  std::string_view server_name);
  asio::any_io_executor executor_;
  asio::ssl::context& tls_;
  UpstreamTimeouts timeouts_;
  std::map<std::string, std::vector<std::unique_ptr<UpstreamConnection>>> idle_;
  UpstreamPoolStats stats_;
  EndpointCheck endpoint_check_;
};

}  // namespace sumcache::daemon
