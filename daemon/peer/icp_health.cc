#include "daemon/peer/icp_health.h"

namespace sumcache::daemon {

IcpHealthChange icp_health_after(std::uint64_t down, const IcpQueryResult& result) {
  IcpHealthChange change;
  change.came_up = result.answered & down;
  if (!result.stopped) change.went_down = result.silent & ~result.answered & ~down;
  return change;
}

}  // namespace sumcache::daemon
