#pragma once
// Port helpers for tests on loopback.

#include <chrono>
#include <cstdint>
#include <string>

namespace sumcache::testing {

// A TCP port on 127.0.0.1 that was free a moment ago: binds port 0, reads the
// port the kernel chose and closes the socket. Racy by nature: another process
// may bind the port before the caller does. Prefer letting the program under
// test bind port 0 and report its port; use this only for one that cannot.
// Throws std::system_error when no socket can be bound.
std::uint16_t free_port();

// True when a TCP connection to host:port (an IPv4 or IPv6 literal) is accepted
// within `timeout`; the connection is closed at once.
bool port_accepts(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout);

}  // namespace sumcache::testing
