#pragma once
// This node's cache served as a Squid Cache Digest (docs/interop.md, "sumcache
// as a Squid digest sibling"): a thread of its own rebuilds it from the
// store's keys every cluster.squid_digest.rebuild_interval_ms, and at once
// when the admin asks (POST /squid-digest, rebuild_now), walking the
// store in bounded steps, so no proxy worker ever builds or waits for one.
// Workers take the current snapshot (a shared_ptr copy) and count what they
// served. The store's counting filter stays the source of truth: this view
// is derived from the same keys and thrown away at the next build.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "daemon/cache/squid_digest_reply.h"
#include "daemon/log/log_limiter.h"
#include "daemon/log/logger.h"
#include "daemon/store/store.h"

namespace sumcache::daemon {

struct SquidDigestStats {
  std::uint64_t builds = 0;
  std::uint64_t requested = 0;     // rebuilds asked for by rebuild_now (the admin)
  std::uint64_t overruns = 0;      // builds that outlasted the interval
  std::uint64_t served = 0;        // 200s
  std::uint64_t not_modified = 0;  // 304s to a conditional GET
  std::uint64_t unavailable = 0;   // 503s: asked before the first build
  std::uint64_t refused = 0;       // 405s: not GET or HEAD
  double last_build_seconds = 0;   // how long the last build took
  double build_seconds_total = 0;
  std::uint32_t entries = 0;  // keys in the served digest
  std::uint32_t capacity = 0;
  std::uint64_t bytes = 0;         // the served body: header and mask
  unsigned used_percent = 0;       // of the mask's bits set
  std::int64_t last_modified = 0;  // Unix seconds; 0 before the first build
  std::int64_t expires = 0;        // Unix seconds of the next build
};

class SquidDigestService {
 public:
  // Keys taken per shard lock while walking the store.
  static constexpr std::size_t kKeysPerStep = 1024;

  SquidDigestService(Store& store, std::chrono::milliseconds interval, Logger& log);
  ~SquidDigestService();  // stops the thread
  SquidDigestService(const SquidDigestService&) = delete;
  SquidDigestService& operator=(const SquidDigestService&) = delete;

  void start();  // the first build at once, then every interval
  void stop();
  // The next build starts now instead of at the end of the interval, and the
  // interval restarts after it. Returns at once: stats().builds tells when.
  // Requests while one is pending are one rebuild.
  void rebuild_now();

  std::shared_ptr<const SquidDigestSnapshot> current() const;
  // What a worker answered: 200, 304, 405 or 503 (logged once a second at
  // most with the count held back, as every degraded path).
  void note_answer(unsigned status);
  SquidDigestStats stats() const;

 private:
  void run();
  void build();

  Store& store_;
  const std::chrono::milliseconds interval_;
  Logger& log_;
  mutable std::mutex mutex_;  // snapshot_, stop_, rebuild_
  std::condition_variable wake_;
  bool stop_ = false;
  bool rebuild_ = false;
  std::shared_ptr<const SquidDigestSnapshot> snapshot_;
  std::atomic<std::uint64_t> builds_{0};
  std::atomic<std::uint64_t> requested_{0};
  std::atomic<std::uint64_t> overruns_{0};
  std::atomic<std::uint64_t> served_{0};
  std::atomic<std::uint64_t> not_modified_{0};
  std::atomic<std::uint64_t> unavailable_{0};
  std::atomic<std::uint64_t> refused_{0};
  std::atomic<std::uint64_t> last_build_us_{0};
  std::atomic<std::uint64_t> build_us_total_{0};
  LogLimiter unavailable_log_;
  LogLimiter overrun_log_{std::chrono::minutes(1)};
  std::thread thread_;
};

}  // namespace sumcache::daemon
