#include "daemon/session/connection_close.h"

#include <array>

namespace sumcache::daemon {

awaitable<void> close_lingering(ClientConnection& client) {
  constexpr auto kLingerTime = std::chrono::seconds(2);
  constexpr std::size_t kLingerBytes = 1024 * 1024;
  if (co_await client.stream.close_tls(kLingerTime)) co_return;
  error_code ec;
  client.stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  if (ec) co_return;
  client.stream.expires_after(kLingerTime);
  std::array<char, 16 * 1024> sink;
  for (std::size_t discarded = 0; discarded < kLingerBytes;) {
    auto [rec, n] = co_await client.stream.async_read_some(asio::buffer(sink), use_nothrow);
    if (rec) break;
    discarded += n;
  }
}

}  // namespace sumcache::daemon
