#include "protocol/channel_auth_error.h"

#include <string>

namespace sumcache::protocol {
namespace {

class ChannelAuthCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "sumcache.protocol.channel_auth"; }

  std::string message(int value) const override {
    switch (static_cast<ChannelAuthErrc>(value)) {
      case ChannelAuthErrc::ok:
        return "success";
      case ChannelAuthErrc::missing:
        return "no single Sumcache-Channel-Auth header";
      case ChannelAuthErrc::malformed:
        return "malformed Sumcache-Channel-Auth header";
      case ChannelAuthErrc::bad_mac:
        return "Sumcache-Channel-Auth MAC does not match";
      case ChannelAuthErrc::wrong_receiver:
        return "Sumcache-Channel-Auth is signed for another node";
      case ChannelAuthErrc::length_mismatch:
        return "Sumcache-Channel-Auth len is not the body's length";
      case ChannelAuthErrc::expired:
        return "Sumcache-Channel-Auth time is too far in the past";
      case ChannelAuthErrc::from_future:
        return "Sumcache-Channel-Auth time is too far in the future";
      case ChannelAuthErrc::replayed:
        return "Sumcache-Channel-Auth nonce was seen already";
      case ChannelAuthErrc::other_request:
        return "Sumcache-Channel-Auth answers another request";
    }
    return "unknown channel authentication error";
  }
};

}  // namespace

const std::error_category& channel_auth_category() noexcept {
  static const ChannelAuthCategory category;
  return category;
}

}  // namespace sumcache::protocol
