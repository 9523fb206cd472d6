#include "daemon/net/connect_by_name.h"

namespace sumcache::daemon {

awaitable<ConnectOutcome> connect_by_name(beast::tcp_stream& stream, const std::string& host,
                                          std::uint16_t port,
                                          std::chrono::steady_clock::time_point deadline) {
  tcp::resolver resolver(stream.get_executor());
  // The resolver has no deadline of its own: a timer cancels it.
  asio::steady_timer timer(stream.get_executor(), deadline);
  timer.async_wait([&resolver](error_code ec) {
    if (!ec) resolver.cancel();
  });
  auto [rec, endpoints] = co_await resolver.async_resolve(host, std::to_string(port), use_nothrow);
  timer.cancel();
  if (rec) co_return ConnectOutcome{rec, "resolve"};
  stream.expires_at(deadline);
  auto [cec, ep] = co_await stream.async_connect(endpoints, use_nothrow);
  if (cec) co_return ConnectOutcome{cec, "connect"};
  co_return ConnectOutcome{};
}

}  // namespace sumcache::daemon
