#include "daemon/peer/peer_status.h"

namespace sumcache::daemon {

const char* to_string(PeerState s) {
  switch (s) {
    case PeerState::up: return "up";
    case PeerState::suspect: return "suspect";
    case PeerState::down: return "down";
  }
  return "down";
}

const char* to_string(PeerSource s) {
  switch (s) {
    case PeerSource::config:
      return "config";
    case PeerSource::admin:
      return "admin";
    case PeerSource::discovery:
      return "discovery";
    case PeerSource::redis:
      return "redis";
  }
  return "config";
}

}  // namespace sumcache::daemon
