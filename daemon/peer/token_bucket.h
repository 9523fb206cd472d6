#pragma once
// A token bucket (RFC 2697's committed burst, one colour): `rate` tokens a
// second up to `burst`; a summary takes one. Time is passed in; one thread.

#include <algorithm>
#include <chrono>

namespace sumcache::daemon {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;
  TokenBucket(double rate, double burst) : rate_(rate), burst_(burst), tokens_(burst) {}

  // Zero when a token is there now; else how long until one is.
  Clock::duration wait(Clock::time_point now) {
    refill(now);
    if (tokens_ >= 1) return Clock::duration::zero();
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>((1 - tokens_) / rate_));
  }
  void take(Clock::time_point now) {
    refill(now);
    tokens_ = std::max(0.0, tokens_ - 1);
  }

 private:
  void refill(Clock::time_point now) {
    if (started_) {
      const double elapsed = std::chrono::duration<double>(now - last_).count();
      if (elapsed > 0) tokens_ = std::min(burst_, tokens_ + elapsed * rate_);
    }
    started_ = true;
    last_ = std::max(last_, now);
  }

  double rate_;
  double burst_;
  double tokens_;
  bool started_ = false;
  Clock::time_point last_{};
};

}  // namespace sumcache::daemon
