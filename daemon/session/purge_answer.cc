#include "daemon/session/purge_answer.h"

namespace sumcache::daemon {

nlohmann::ordered_json reach_json(const PurgeReach& reach) {
  return {{"acked", reach.acked}, {"total", reach.total}, {"pending", reach.pending}};
}

}  // namespace sumcache::daemon
