#include "protocol/replay_window.h"

#include <algorithm>

#include "protocol/peer_auth.h"

namespace sumcache::protocol {

void ReplayWindow::forget_oldest() {
  const auto oldest = by_time_.begin();
  floor_ = std::max(floor_, oldest->first);
  nonces_.erase(oldest->second);
  by_time_.erase(oldest);
}

ChannelAuthErrc ReplayWindow::admit(std::string_view nonce, std::int64_t time, std::int64_t now) {
  while (!by_time_.empty() && by_time_.begin()->first < now - kPeerAuthWindowSeconds) {
    forget_oldest();
  }
  if (time <= floor_) return ChannelAuthErrc::expired;
  std::string key(nonce);
  if (nonces_.contains(key)) return ChannelAuthErrc::replayed;
  if (capacity_ == 0) return ChannelAuthErrc::expired;  // keeps nothing: proves nothing fresh
  while (nonces_.size() >= capacity_) forget_oldest();
  // The one forgotten may have had this t: then this head is refused too,
  // since it cannot be told apart from a replay of that one's t.
  if (time <= floor_) return ChannelAuthErrc::expired;
  by_time_.emplace(time, key);
  nonces_.insert(std::move(key));
  return ChannelAuthErrc::ok;
}

}  // namespace sumcache::protocol
