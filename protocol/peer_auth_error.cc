#include "protocol/peer_auth_error.h"

#include <string>

namespace sumcache::protocol {
namespace {

class PeerAuthCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "sumcache.protocol.peer_auth"; }

  std::string message(int value) const override {
    switch (static_cast<PeerAuthErrc>(value)) {
      case PeerAuthErrc::ok:
        return "success";
      case PeerAuthErrc::missing:
        return "peer request without a Sumcache-Peer-Auth header";
      case PeerAuthErrc::malformed:
        return "malformed Sumcache-Peer-Auth header";
      case PeerAuthErrc::unknown_node:
        return "Sumcache-Peer-Auth names a node that is not a configured peer";
      case PeerAuthErrc::bad_mac:
        return "Sumcache-Peer-Auth MAC does not match the request";
      case PeerAuthErrc::expired:
        return "Sumcache-Peer-Auth time is too far in the past";
      case PeerAuthErrc::from_future:
        return "Sumcache-Peer-Auth time is too far in the future";
      case PeerAuthErrc::node_mismatch:
        return "X-Sumcache-Peer names another node than Sumcache-Peer-Auth";
      case PeerAuthErrc::bad_method:
        return "peer requests use GET or HEAD only";
    }
    return "unknown peer authentication error";
  }
};

}  // namespace

const std::error_category& peer_auth_category() noexcept {
  static const PeerAuthCategory category;
  return category;
}

const char* label(PeerAuthErrc e) noexcept {
  switch (e) {
    case PeerAuthErrc::ok:
      return "ok";
    case PeerAuthErrc::missing:
      return "missing";
    case PeerAuthErrc::malformed:
      return "malformed";
    case PeerAuthErrc::unknown_node:
      return "unknown_node";
    case PeerAuthErrc::bad_mac:
      return "bad_mac";
    case PeerAuthErrc::expired:
      return "expired";
    case PeerAuthErrc::from_future:
      return "from_future";
    case PeerAuthErrc::node_mismatch:
      return "node_mismatch";
    case PeerAuthErrc::bad_method:
      return "bad_method";
  }
  return "unknown";
}

}  // namespace sumcache::protocol
