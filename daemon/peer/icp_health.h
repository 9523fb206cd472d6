#pragma once
// ICP peers' health (docs/icp.md, "Dead peers"), pure. ICP has nothing but its
// queries to learn a peer's health from. A peer silent through one query's
// whole window (cluster.peer_timeout_ms) is down at once: every later miss
// would wait that window for it again, so a dead Squid costs one slow miss,
// not one per miss until failures add up. A down peer is asked no miss's
// query, only a probe every kIcpProbeInterval, and is up again as soon as it
// answers anything. The peer service carries this out (peer_icp.cc).

#include <chrono>
#include <cstdint>
#include <string_view>

#include "daemon/peer/icp_query_state.h"

namespace sumcache::daemon {

// Between two probes of the down peers (each waits peer_timeout_ms at most).
inline constexpr std::chrono::milliseconds kIcpProbeInterval{1000};
// What a probe asks for: a name no cache holds (RFC 2606's .invalid), so a
// live peer answers MISS and nothing is fetched.
inline constexpr std::string_view kIcpProbeUrl = "http://sumcache.invalid/icp-probe";

struct IcpHealthChange {
  std::uint64_t went_down = 0;  // bit i: peers[i] is down from now on
  std::uint64_t came_up = 0;    // bit i: peers[i] is up again
};

// What one finished query (a miss's or a probe) changes, for peers that were
// `down` before it (bit i = peers[i]): a peer that answered is up; one silent
// until the timeout is down, unless it was already. A query ended by stop(),
// or one whose first HIT ended it before another peer answered, says nothing
// of the peers it stopped waiting for.
IcpHealthChange icp_health_after(std::uint64_t down, const IcpQueryResult& result);

}  // namespace sumcache::daemon
