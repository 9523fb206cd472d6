#pragma once
// The accept loop every listener runs, carrying out accept_policy.h: a pause that doubles up to
// a cap while descriptors or memory are short, a count per kind of failure that the listener's
// owner shows in /metrics (sumcache_accept_failures_total), and one log line per second at most
// with the number held back. It ends when the acceptor is closed (drain, stop).

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "daemon/log/log_limiter.h"
#include "daemon/log/logger.h"
#include "daemon/net/accept_policy.h"
#include "daemon/net/asio.h"

namespace sumcache::daemon {

class AcceptCounters {
 public:
  void add(AcceptFailure f) {
    counts_[static_cast<std::size_t>(f)].fetch_add(1, std::memory_order_relaxed);
  }
  AcceptCounts snapshot() const {
    AcceptCounts out{};
    for (std::size_t i = 0; i < kAcceptFailureKinds; ++i) {
      out[i] = counts_[i].load(std::memory_order_relaxed);
    }
    return out;
  }

 private:
  std::array<std::atomic<std::uint64_t>, kAcceptFailureKinds> counts_{};
};

// One listening socket's loop state; its owner keeps it as long as the loop runs.
struct AcceptSite {
  AcceptSite(std::string n, Logger& l, AcceptCounters& c)
      : name(std::move(n)), log(l), counters(c) {}
  std::string name;  // for the log: "proxy listener 127.0.0.1:3128"
  Logger& log;
  AcceptCounters& counters;
  AcceptBackoff backoff{};
  LogLimiter log_limiter{};
};

// Accepts until the acceptor is closed, handing each connection to on_connection.
awaitable<void> accept_connections(tcp::acceptor& acceptor, AcceptSite& site,
                                   std::function<void(tcp::socket)> on_connection);

}  // namespace sumcache::daemon
