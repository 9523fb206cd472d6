#include "daemon/cache/squid_digest_service.h"

#include <vector>

#include "daemon/cache/squid_digest_build.h"

namespace sumcache::daemon {

SquidDigestService::SquidDigestService(Store& store, std::chrono::milliseconds interval,
                                       Logger& log)
    : store_(store), interval_(interval), log_(log) {}

SquidDigestService::~SquidDigestService() { stop(); }

void SquidDigestService::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void SquidDigestService::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SquidDigestService::rebuild_now() {
  requested_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard lock(mutex_);
    rebuild_ = true;
  }
  wake_.notify_all();
}

std::shared_ptr<const SquidDigestSnapshot> SquidDigestService::current() const {
  std::lock_guard lock(mutex_);
  return snapshot_;
}

void SquidDigestService::run() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    rebuild_ = false;
    lock.unlock();
    const auto started = std::chrono::steady_clock::now();
    build();
    const auto ended = std::chrono::steady_clock::now();
    const SquidDigestSchedule next = next_squid_digest_build(started, ended, interval_);
    if (next.overrun) {
      overruns_.fetch_add(1, std::memory_order_relaxed);
      if (const auto held = overrun_log_.admit(LogLimiter::Clock::now())) {
        std::string line =
            "squid digest: a build took " +
            std::to_string(
                std::chrono::duration_cast<std::chrono::milliseconds>(ended - started).count()) +
            " ms, more than cluster.squid_digest.rebuild_interval_ms (" +
            std::to_string(interval_.count()) + "); the next starts an interval after it";
        if (*held > 0) line += " (" + std::to_string(*held) + " more since the last line)";
        log_.warn(line);
      }
    }
    lock.lock();
    wake_.wait_until(lock, next.next, [this] { return stop_ || rebuild_; });
  }
}

void SquidDigestService::build() {
  const auto started = std::chrono::steady_clock::now();
  const StoreStats counts = store_.stats();
  std::vector<protocol::SquidStoreKey> keys;
  keys.reserve(counts.keys);
  for (std::size_t shard = 0; shard < store_.shard_count(); ++shard) {
    std::string after;
    for (;;) {
      const auto names = store_.key_names(shard, after, kKeysPerStep);
      for (const auto& name : names) keys.push_back(squid_key_of(name));
      if (names.size() < kKeysPerStep) break;
      after = names.back();
    }
  }
  const protocol::SquidDigest digest =
      build_squid_digest(keys, counts.memory_bytes + counts.disk_bytes);
  auto next = std::make_shared<SquidDigestSnapshot>();
  next->body = digest.encode();
  next->entries = digest.header().count;
  next->capacity = digest.header().capacity;
  next->used_percent = digest.used_percent();
  const auto now = std::chrono::system_clock::now();
  next->last_modified = std::chrono::floor<std::chrono::seconds>(now);
  next->next_build = now + interval_;
  const auto took = std::chrono::steady_clock::now() - started;
  const auto us = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(took).count());
  {
    std::lock_guard lock(mutex_);
    if (snapshot_ && snapshot_->body == next->body) next->last_modified = snapshot_->last_modified;
    snapshot_ = std::move(next);
  }
  builds_.fetch_add(1, std::memory_order_relaxed);
  last_build_us_.store(us, std::memory_order_relaxed);
  build_us_total_.fetch_add(us, std::memory_order_relaxed);
  log_.debug("squid digest: built from " + std::to_string(keys.size()) + " keys in " +
             std::to_string(us) + " us");
}

void SquidDigestService::note_answer(unsigned status) {
  switch (status) {
    case 200:
      served_.fetch_add(1, std::memory_order_relaxed);
      return;
    case 304:
      not_modified_.fetch_add(1, std::memory_order_relaxed);
      return;
    case 405:
      refused_.fetch_add(1, std::memory_order_relaxed);
      return;
    default:
      break;
  }
  unavailable_.fetch_add(1, std::memory_order_relaxed);
  if (const auto held = unavailable_log_.admit(LogLimiter::Clock::now())) {
    std::string line = "squid digest: asked for before the first build, answered 503";
    if (*held > 0) line += " (" + std::to_string(*held) + " more since the last line)";
    log_.warn(line);
  }
}

SquidDigestStats SquidDigestService::stats() const {
  SquidDigestStats s;
  s.builds = builds_.load(std::memory_order_relaxed);
  s.requested = requested_.load(std::memory_order_relaxed);
  s.overruns = overruns_.load(std::memory_order_relaxed);
  s.served = served_.load(std::memory_order_relaxed);
  s.not_modified = not_modified_.load(std::memory_order_relaxed);
  s.unavailable = unavailable_.load(std::memory_order_relaxed);
  s.refused = refused_.load(std::memory_order_relaxed);
  s.last_build_seconds = static_cast<double>(last_build_us_.load(std::memory_order_relaxed)) / 1e6;
  s.build_seconds_total =
      static_cast<double>(build_us_total_.load(std::memory_order_relaxed)) / 1e6;
  if (const auto snapshot = current()) {
    s.entries = snapshot->entries;
    s.capacity = snapshot->capacity;
    s.bytes = snapshot->body.size();
    s.used_percent = snapshot->used_percent;
    s.last_modified = snapshot->last_modified.time_since_epoch().count();
    s.expires =
        std::chrono::ceil<std::chrono::seconds>(snapshot->next_build).time_since_epoch().count();
  }
  return s;
}

}  // namespace sumcache::daemon
