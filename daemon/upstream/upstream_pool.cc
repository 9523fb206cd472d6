#include "daemon/upstream/upstream_pool.h"

#include <openssl/ssl.h>

namespace sumcache::daemon {
namespace {

using namespace asio::experimental::awaitable_operators;

// Async DNS with its own deadline: the resolver has none of its own.
awaitable<std::tuple<error_code, tcp::resolver::results_type>> resolve(
    asio::any_io_executor executor, const Origin& origin, std::chrono::milliseconds timeout) {
  error_code literal_ec;
  const auto address = asio::ip::make_address(origin.host, literal_ec);
  if (!literal_ec) {
    co_return std::tuple{error_code{}, tcp::resolver::results_type::create(
                                          tcp::endpoint(address, origin.port), origin.host,
                                          std::to_string(origin.port))};
  }
  tcp::resolver resolver(executor);
  asio::steady_timer timer(executor, timeout);
  auto outcome = co_await (resolver.async_resolve(origin.host, std::to_string(origin.port),
                                                  use_nothrow) ||
                           timer.async_wait(use_nothrow));
  if (outcome.index() == 1) {
    co_return std::tuple{error_code(asio::error::timed_out), tcp::resolver::results_type{}};
  }
  co_return std::get<0>(std::move(outcome));
}

}  // namespace

UpstreamPool::UpstreamPool(asio::any_io_executor executor, asio::ssl::context& tls,
                           UpstreamTimeouts timeouts)
    : executor_(std::move(executor)), tls_(tls), timeouts_(timeouts) {}

awaitable<std::tuple<error_code, std::unique_ptr<UpstreamConnection>, bool>> UpstreamPool::acquire(
    const Origin& origin, std::string_view tls_server_name) {
  auto found = idle_.find(origin.pool_key());
  const auto now = std::chrono::steady_clock::now();
  while (found != idle_.end() && !found->second.empty()) {
    std::unique_ptr<UpstreamConnection> connection = std::move(found->second.back());
    found->second.pop_back();
    --stats_.idle;
    if (now - connection->idle_since < timeouts_.idle) {
      ++stats_.reuses;
      co_return std::tuple{error_code{}, std::move(connection), true};
    }
  }
  auto [ec, fresh] = co_await connect(origin, tls_server_name);
  co_return std::tuple{ec, std::move(fresh), false};
}

awaitable<std::tuple<error_code, std::unique_ptr<UpstreamConnection>>> UpstreamPool::connect(
    const Origin& origin, std::string_view tls_server_name) {
  ++stats_.connects;
  auto [resolve_ec, endpoints] = co_await resolve(executor_, origin, timeouts_.dns);
  if (resolve_ec) {
    ++stats_.connect_failures;
    co_return std::tuple{resolve_ec, nullptr};
  }
  // After resolution: a name that leads here is judged by where it leads.
  for (const auto& entry : endpoints) {
    if (!endpoint_check_) break;
    if (auto refused = endpoint_check_(origin, entry.endpoint())) {
      ++stats_.connect_failures;
      co_return std::tuple{refused, nullptr};
    }
  }
  beast::tcp_stream stream(executor_);
  stream.expires_after(timeouts_.connect);
  auto [connect_ec, endpoint] = co_await stream.async_connect(endpoints, use_nothrow);
  if (connect_ec) {
    ++stats_.connect_failures;
    co_return std::tuple{connect_ec, nullptr};
  }
  error_code ignored;
  stream.socket().set_option(tcp::no_delay(true), ignored);
  if (!origin.tls) {
    co_return std::tuple{error_code{}, std::make_unique<UpstreamConnection>(origin, std::move(stream))};
  }
  UpstreamConnection::Tls tls_stream(std::move(stream), tls_);
  if (auto ec = co_await handshake(tls_stream, origin, tls_server_name)) {
    ++stats_.connect_failures;
    co_return std::tuple{ec, nullptr};
  }
  co_return std::tuple{error_code{}, std::make_unique<UpstreamConnection>(origin, std::move(tls_stream))};
}

awaitable<error_code> UpstreamPool::handshake(UpstreamConnection::Tls& stream,
                                              const Origin& origin, std::string_view server_name) {
  const std::string name = server_name.empty() ? origin.host : std::string(server_name);
  error_code literal_ec;
  asio::ip::make_address(name, literal_ec);
  // SNI only for names (RFC 6066 §3 forbids IP literals); verification covers both.
  if (literal_ec && SSL_set_tlsext_host_name(stream.native_handle(), name.c_str()) != 1) {
    co_return error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category());
  }
  stream.set_verify_callback(asio::ssl::host_name_verification(name));
  beast::get_lowest_layer(stream).expires_after(timeouts_.connect);
  auto [ec] = co_await stream.async_handshake(asio::ssl::stream_base::client, use_nothrow);
  co_return ec;
}

void UpstreamPool::release(std::unique_ptr<UpstreamConnection> connection) {
  auto& list = idle_[connection->origin().pool_key()];
  if (list.size() >= timeouts_.max_idle_per_origin) return;
  connection->idle_since = std::chrono::steady_clock::now();
  connection->tcp().expires_never();
  list.push_back(std::move(connection));
  ++stats_.idle;
}

UpstreamPoolStats UpstreamPool::stats() const { return stats_; }

}  // namespace sumcache::daemon
