#include "daemon/observe/rate_window.h"

#include <algorithm>

namespace sumcache::daemon {

WindowTotals WindowTotals::minus(const WindowTotals& e) const {
  // Counters only grow; a snapshot taken field by field may still see one
  // ahead of another, so clamp rather than wrap.
  auto d = [](std::uint64_t now, std::uint64_t then) { return now > then ? now - then : 0; };
  return {d(requests, e.requests),
          d(local_hits, e.local_hits),
          d(peer_hits, e.peer_hits),
          d(bytes, e.bytes),
          d(local_hit_bytes, e.local_hit_bytes),
          d(peer_hit_bytes, e.peer_hit_bytes)};
}

WindowTotals WindowTotals::plus(const WindowTotals& o) const {
  return {requests + o.requests,
          local_hits + o.local_hits,
          peer_hits + o.peer_hits,
          bytes + o.bytes,
          local_hit_bytes + o.local_hit_bytes,
          peer_hit_bytes + o.peer_hit_bytes};
}

void RateWindow::sample(std::int64_t now, const WindowTotals& cumulative) {
  if (now < start_) return;
  slots_[static_cast<std::size_t>(now % static_cast<std::int64_t>(slots_.size()))] =
      Slot{now, cumulative};
}

WindowFigures RateWindow::over(std::int64_t now, const WindowTotals& current,
                               std::int64_t seconds) const {
  seconds = std::clamp<std::int64_t>(seconds, 0, kMaxSeconds);
  const std::int64_t since = now - seconds;
  // The newest sample at or before `since`; the ring holds the last 301 s,
  // so a scan finds it whenever it is still there.
  const Slot* base = nullptr;
  for (const Slot& slot : slots_) {
    if (slot.second < 0 || slot.second > since || slot.second < now - kMaxSeconds) continue;
    if (base == nullptr || slot.second > base->second) base = &slot;
  }
  if (base == nullptr || since <= start_) return {current, std::max<std::int64_t>(now - start_, 0)};
  return {current.minus(base->totals), now - base->second};
}

}  // namespace sumcache::daemon
