#include "daemon/observe/proxy_stats.h"

namespace sumcache::daemon {

const char* to_string(PeerObjectRefusal r) {
  switch (r) {
    case PeerObjectRefusal::address:
      return "address";
    case PeerObjectRefusal::handshake:
      return "handshake";
    case PeerObjectRefusal::not_peer:
      return "not_peer";
  }
  return "address";
}

}  // namespace sumcache::daemon
