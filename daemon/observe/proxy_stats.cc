#include "daemon/observe/proxy_stats.h"

namespace sumcache::daemon {

const char* to_string(CacheResult r) {
  switch (r) {
    case CacheResult::miss:
      return "MISS";
    case CacheResult::hit:
      return "HIT";
    case CacheResult::refresh_hit:
      return "REFRESH_HIT";
    case CacheResult::refresh_miss:
      return "REFRESH_MISS";
    case CacheResult::stale_hit:
      return "STALE_HIT";
    case CacheResult::collapsed_hit:
      return "COLLAPSED_HIT";
    case CacheResult::peer_hit:
      return "PEER-HIT";
    case CacheResult::owner:
      return "OWNER";
    case CacheResult::pass:
      return "PASS";
    case CacheResult::tunnel:
      return "TUNNEL";
    case CacheResult::error:
      return "ERROR";
  }
  return "ERROR";
}

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
