#pragma once
// Port helpers for tests on loopback.

#include <chrono>
#include <cstdint>
#include <string>

namespace sumcache::testing {

// A TCP port on 127.0.0.1 that was free a moment ago, chosen at random below
// the kernel's ephemeral range (net.ipv4.ip_local_port_range) and checked by
// binding it. Below that range, because the kernel hands ephemeral ports to
// outgoing connections: a port chosen there could be taken by any client
// socket (another node's push, a test's request) before the daemon that is to
// listen on it starts, which made late-started nodes fail with EADDRINUSE.
// Still racy against other processes choosing ports the same way; prefer
// letting the program under test bind port 0 and report its port.
// Throws std::system_error when no port can be found.
std::uint16_t free_port();

// True when a TCP connection to host:port (an IPv4 or IPv6 literal) is accepted
// within `timeout`; the connection is closed at once.
bool port_accepts(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout);

}  // namespace sumcache::testing
