#include "daemon/session/tunnel.h"

#include "daemon/exchange/destination_guard.h"
#include "daemon/exchange/error_response.h"
#include "daemon/exchange/forward_flow.h"

namespace sumcache::daemon {
namespace {

using namespace asio::experimental::awaitable_operators;

constexpr std::size_t kTunnelBuffer = 16 * 1024;

// The client's bytes to the origin until the client's side ends; then the
// origin sees that end.
awaitable<void> to_origin(ClientExchange& client, beast::tcp_stream& origin,
                          std::chrono::milliseconds idle, std::uint64_t& copied) {
  std::vector<char> buffer(kTunnelBuffer);
  for (;;) {
    auto [rec, n] = co_await client.read_body(asio::buffer(buffer), idle);
    if (rec || n == 0) break;
    origin.expires_after(idle);
    auto [wec, w] = co_await asio::async_write(origin, asio::buffer(buffer.data(), n), use_nothrow);
    if (wec) break;
    copied += w;
  }
  error_code ignored;
  origin.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

// The origin's bytes to the client until the origin's side ends; then the
// client sees that end.
awaitable<void> to_client(beast::tcp_stream& origin, ClientExchange& client,
                          std::chrono::milliseconds idle) {
  std::vector<char> buffer(kTunnelBuffer);
  bool client_gone = false;
  for (;;) {
    origin.expires_after(idle);
    auto [rec, n] = co_await origin.async_read_some(asio::buffer(buffer), use_nothrow);
    if (rec || n == 0) break;
    auto [wec, w] = co_await client.write_body(asio::buffer(buffer.data(), n), false);
    client_gone = static_cast<bool>(wec);
    if (client_gone) break;
  }
  if (!client_gone) co_await client.write_body({}, true);
}

}  // namespace

awaitable<unsigned> run_tunnel(WorkerContext& worker, const Settings& settings,
                               ClientExchange& client, const Route& route) {
  const auto& limits = settings.config.limits;
  client.keep_alive = false;  // the connection belongs to the tunnel from here on
  auto [ec, upstream] = co_await worker.pool.connect(route.upstream, "");
  if (ec) {
    const bool timed_out = ec == beast::error::timeout || ec == asio::error::timed_out;
    auto status =
        timed_out ? beast::http::status::gateway_timeout : beast::http::status::bad_gateway;
    std::string reason = "cannot connect to " + route.upstream.pool_key() + ": " + ec.message();
    if (is_destination_refusal(ec)) {
      status = beast::http::status::forbidden;
      reason = ec.message();
    } else {
      log_upstream_failure(worker.shared, static_cast<unsigned>(status), route, ec);
    }
    co_await write_message(client, make_error_response(status, reason, false, 11, settings.via));
    co_return static_cast<unsigned>(status);
  }
  const std::string established =
      "HTTP/1.1 200 Connection established\r\nVia: " + settings.via + "\r\n";
  auto [wec, n] = co_await client.write_response(established, "\r\n", {}, {.more = true});
  if (wec) co_return 200;
  // A tunnel is bounded by its idle time both ways, writes to the client included.
  const auto idle = limits.client_idle_timeout_ms;
  client.write_timeout = idle;
  std::uint64_t up = 0;
  co_await (to_origin(client, upstream->tcp(), idle, up) &&
            to_client(upstream->tcp(), client, idle));
  worker.stats.bytes_in.fetch_add(up, std::memory_order_relaxed);
  co_return 200;
}

}  // namespace sumcache::daemon
