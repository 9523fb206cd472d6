#include "daemon/session/tunnel.h"

#include "daemon/exchange/destination_guard.h"
#include "daemon/exchange/error_response.h"
#include "daemon/exchange/forward_flow.h"

namespace sumcache::daemon {
namespace {

using namespace asio::experimental::awaitable_operators;

template <class From, class To>
awaitable<void> pump(From& from, To& to, std::chrono::milliseconds idle, std::uint64_t& copied) {
  std::vector<char> buffer(16 * 1024);
  for (;;) {
    from.expires_after(idle);
    auto [rec, n] = co_await from.async_read_some(asio::buffer(buffer), use_nothrow);
    if (rec || n == 0) break;
    to.expires_after(idle);
    auto [wec, w] = co_await asio::async_write(to, asio::buffer(buffer.data(), n), use_nothrow);
    if (wec) break;
    copied += w;
  }
  error_code ignored;
  to.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

}  // namespace

awaitable<unsigned> run_tunnel(WorkerContext& worker, const Settings& settings,
                               ClientConnection& client, const Route& route) {
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
    auto res = make_error_response(status, reason, false, 11, settings.via);
    client.stream.expires_after(limits.upstream_io_timeout_ms);
    auto [wec, n] = co_await beast::http::async_write(client.stream, res, use_nothrow);
    client.bytes_out += n;
    co_return static_cast<unsigned>(status);
  }
  const std::string established =
      "HTTP/1.1 200 Connection established\r\nVia: " + settings.via + "\r\n\r\n";
  client.stream.expires_after(limits.upstream_io_timeout_ms);
  auto [wec, n] = co_await asio::async_write(client.stream, asio::buffer(established), use_nothrow);
  client.bytes_out += n;
  if (wec) co_return 200;
  beast::tcp_stream& origin = upstream->tcp();
  // Bytes the client sent after the CONNECT head go first.
  if (client.buffer.size() > 0) {
    origin.expires_after(limits.upstream_io_timeout_ms);
    auto [pec, pn] = co_await asio::async_write(origin, client.buffer.data(), use_nothrow);
    client.buffer.consume(client.buffer.size());
    if (pec) co_return 200;
  }
  std::uint64_t up = 0;
  std::uint64_t down = 0;
  const auto idle = limits.client_idle_timeout_ms;
  co_await (pump(client.stream, origin, idle, up) && pump(origin, client.stream, idle, down));
  client.bytes_out += down;
  worker.stats.bytes_in.fetch_add(up, std::memory_order_relaxed);
  co_return 200;
}

}  // namespace sumcache::daemon
