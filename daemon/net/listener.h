#pragma once
// Binding listening sockets. Every worker thread binds its own acceptor to the
// same address with SO_REUSEPORT (the nginx model): the kernel spreads
// connections across threads and a connection never hops threads.

#include <string>

#include "daemon/net/asio.h"

namespace sumcache::daemon {

// Binds and listens; on failure the error says which step failed. A failed
// bind stops startup: the caller reports it and exits non-zero.
error_code open_acceptor(tcp::acceptor& acceptor, const tcp::endpoint& endpoint, bool reuse_port,
                         std::string& failed_step);

// "127.0.0.1:3128", "[::1]:3128": for log lines.
std::string endpoint_text(const tcp::endpoint& endpoint);

}  // namespace sumcache::daemon
