#include "daemon/peer/purge_reach.h"

namespace sumcache::daemon {

PurgeReach purge_reach(std::uint64_t sequence, const std::vector<PeerAcked>& peers) {
  PurgeReach reach;
  reach.total = 1 + peers.size();
  for (const PeerAcked& p : peers) {
    if (sequence != 0 && p.acked_through >= sequence) {
      ++reach.acked;
    } else {
      reach.pending.push_back(p.id);
    }
  }
  return reach;
}

}  // namespace sumcache::daemon
