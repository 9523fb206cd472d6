#pragma once
// One TCP connection to host:port (a name or an IP literal), the name's
// resolution and the connect both bounded by one deadline. Shared by the
// exchanges that open a fresh connection per request (peer pushes and pulls,
// Squid digest fetches).

#include <chrono>
#include <cstdint>
#include <string>

#include "daemon/net/asio.h"

namespace sumcache::daemon {

struct ConnectOutcome {
  error_code ec;
  const char* step = "";  // on failure, "resolve" or "connect": what a log line names
};

// On success the stream is connected and expires at `deadline`, so the
// exchange that follows is bounded by it too.
awaitable<ConnectOutcome> connect_by_name(beast::tcp_stream& stream, const std::string& host,
                                          std::uint16_t port,
                                          std::chrono::steady_clock::time_point deadline);

}  // namespace sumcache::daemon
