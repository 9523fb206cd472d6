#include "daemon/log/cache_result.h"

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

}  // namespace sumcache::daemon
