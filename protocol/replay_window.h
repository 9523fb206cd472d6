#pragma once
// The nonces of one peer's channel heads seen within the time window
// (docs/protocol.md, "Channel authentication"): a head whose nonce was seen
// is a replay, and is refused. Bounded: at most `capacity` nonces are kept;
// when full, the one with the oldest t goes, and the peer's floor rises to
// that t, so that a head at or below the floor is refused as expired (it
// could be the one forgotten). Entries older than the window go the same way:
// verify_channel_request refuses their t already, and the floor keeps them
// refused should the clock step back. Pure: `now` is passed in.

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "protocol/channel_auth_error.h"

namespace sumcache::protocol {

class ReplayWindow {
 public:
  static constexpr std::size_t kDefaultCapacity = 4096;
  explicit ReplayWindow(std::size_t capacity = kDefaultCapacity) : capacity_(capacity) {}

  // ok, and the nonce is remembered; or replayed, or expired (t at or below
  // the floor). `time` is the head's verified t.
  ChannelAuthErrc admit(std::string_view nonce, std::int64_t time, std::int64_t now);

  std::size_t size() const { return nonces_.size(); }
  // Heads at or below this t are refused; -1 before anything was forgotten.
  std::int64_t floor() const { return floor_; }

 private:
  void forget_oldest();

  std::size_t capacity_;
  std::int64_t floor_ = -1;
  std::set<std::pair<std::int64_t, std::string>> by_time_;
  std::unordered_set<std::string> nonces_;
};

}  // namespace sumcache::protocol
