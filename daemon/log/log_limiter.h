#pragma once
// Lets one line of a noisy kind through per interval and counts the ones it held
// back, so that a flood (garbage datagrams, a misbehaving peer) cannot fill the log.
// Thread-safe; time is passed in.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>

namespace sumcache::daemon {

class LogLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LogLimiter(Clock::duration interval = std::chrono::seconds(1)) : interval_(interval) {}

  // Empty: hold this line back. Otherwise log it, with the count held back since the last one.
  std::optional<std::uint64_t> admit(Clock::time_point now) {
    std::lock_guard lock(mutex_);
    if (logged_ && now - last_ < interval_) {
      ++held_back_;
      return std::nullopt;
    }
    logged_ = true;
    last_ = now;
    const std::uint64_t held = held_back_;
    held_back_ = 0;
    return held;
  }

 private:
  const Clock::duration interval_;
  std::mutex mutex_;
  bool logged_ = false;
  Clock::time_point last_{};
  std::uint64_t held_back_ = 0;
};

}  // namespace sumcache::daemon
