#pragma once
// What the admin listener's sessions share. Lives on the admin thread; only
// the sessions and the once-a-second sampler touch it.

#include <chrono>
#include <cstdint>
#include <vector>

#include "daemon/admin/rate_window.h"
#include "daemon/proxy/proxy_context.h"

namespace sumcache::daemon {

class Worker;

struct AdminContext {
  AdminContext(ProxyShared& s, std::vector<Worker*> w) : shared(s), workers(std::move(w)) {}

  // Seconds since the daemon started, on the monotonic clock: the RateWindow's time.
  std::int64_t now_seconds() const {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() -
                                                            shared.started)
        .count();
  }

  ProxyShared& shared;
  std::vector<Worker*> workers;  // their upstream pools, for /stats
  RateWindow window{0};
  std::uint32_t sessions = 0;
};

}  // namespace sumcache::daemon
