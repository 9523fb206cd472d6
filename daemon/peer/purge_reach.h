#pragma once
// Where a purge has taken effect, for the admin answer (docs/peers.md,
// "Cluster-wide invalidation"): this node, and each peer that has
// acknowledged the purge's sequence. Pure.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sumcache::daemon {

struct PeerAcked {
  std::string id;
  std::uint64_t acked_through = 0;
};

struct PurgeReach {
  std::size_t acked = 1;  // this node included
  std::size_t total = 1;
  std::vector<std::string> pending;  // peers that have not acknowledged it, in the given order
  bool complete() const { return pending.empty(); }
};

// `sequence` 0: the purge could not be sent (the key is longer than the
// format carries), so no peer has it.
PurgeReach purge_reach(std::uint64_t sequence, const std::vector<PeerAcked>& peers);

}  // namespace sumcache::daemon
