#pragma once
// Hit ratios over the last minute and the last five minutes. The admin
// thread samples the cumulative counters once a second into a ring of 1 s
// slots; a window is the live totals minus the sample from that long ago.
// Workers pay nothing for it. Time is passed in (seconds on a monotonic
// clock) so tests step it without sleeping.

#include <array>
#include <cstdint>

namespace sumcache::daemon {

// Cumulative figures of the requests that could be cached (GET and HEAD that
// reached the cache), and of those answered from this node or a peer.
struct WindowTotals {
  std::uint64_t requests = 0;
  std::uint64_t local_hits = 0;
  std::uint64_t peer_hits = 0;
  std::uint64_t bytes = 0;  // sent to clients for those requests
  std::uint64_t local_hit_bytes = 0;
  std::uint64_t peer_hit_bytes = 0;
  WindowTotals minus(const WindowTotals& earlier) const;
  WindowTotals plus(const WindowTotals& other) const;  // two workers' totals
};

struct WindowFigures {
  WindowTotals delta;
  std::int64_t seconds = 0;  // the span the delta covers; shorter than asked while young
};

class RateWindow {
 public:
  static constexpr std::int64_t kMaxSeconds = 300;

  // `start`: the second the counters were zero.
  explicit RateWindow(std::int64_t start) : start_(start) {}

  // Records `cumulative` as the totals at second `now` (non-decreasing).
  void sample(std::int64_t now, const WindowTotals& cumulative);
  // The change over the last `seconds` (at most kMaxSeconds) up to `current`
  // at `now`: against the newest sample at least that old, or since start.
  WindowFigures over(std::int64_t now, const WindowTotals& current, std::int64_t seconds) const;

 private:
  struct Slot {
    std::int64_t second = -1;  // -1: empty
    WindowTotals totals;
  };
  std::int64_t start_;
  std::array<Slot, kMaxSeconds + 1> slots_{};
};

}  // namespace sumcache::daemon
