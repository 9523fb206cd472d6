#pragma once
// Live membership's decisions (docs/peers.md, "Live membership"), pure: which
// peers a reload adds, removes or re-weights; whether a peer may join; which
// discovered addresses are new or gone; when a down peer's grace is over. The
// peer service carries them out on its thread.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/cluster_config.h"
#include "daemon/peer/peer_status.h"

namespace sumcache::daemon {

// A peer of the table as the decisions see it.
struct Member {
  config::PeerConfig config;
  PeerSource source = PeerSource::config;
};

struct MembershipPlan {
  std::vector<std::string> remove;           // ids, removed first
  std::vector<config::PeerConfig> add;       // then added
  std::vector<config::PeerConfig> reweight;  // the same peer with a new weight
  bool empty() const { return remove.empty() && add.empty() && reweight.empty(); }
};

// A reload whose `peers` went from `before` to `after`: what changed in the
// file is applied to `current`; peers an admin call added or removed since
// keep that state unless the file changed the same id. An entry whose host or
// a port changed is another peer to talk to: removed and added again.
MembershipPlan plan_reload(const std::vector<config::PeerConfig>& before,
                           const std::vector<config::PeerConfig>& after,
                           const std::vector<Member>& current);

struct JoinRefusal {
  unsigned status = 400;  // 409: conflicts with the table (duplicate, full)
  std::string reason;
};

// Whether `peer` may join `current` on a node whose id is `self`, with room
// for `capacity` peers: the rules config::check_peers applies to the file.
std::optional<JoinRefusal> check_join(const config::PeerConfig& peer, std::string_view self,
                                      const std::vector<Member>& current, std::size_t capacity);

// Discovery (cluster.discovery): the addresses the name resolved to, and the
// addresses already known (bound to a node id, or this node's own). `probe`:
// addresses to ask for their node id; `gone`: known addresses that left.
struct DiscoveryPlan {
  std::vector<std::string> probe;
  std::vector<std::string> gone;
};
// The addresses an /etc/hosts-style text gives `name` (case-insensitive; "#"
// starts a comment; lines whose first field is no IP literal are skipped), in
// the order written, each once.
std::vector<std::string> hosts_file_addresses(std::string_view text, std::string_view name);

DiscoveryPlan plan_discovery(const std::vector<std::string>& resolved,
                             const std::vector<std::string>& known);

// A peer down since `down_since` is dropped from the directory (and a
// discovered one from the table) once `grace` has passed; 0 turns that off.
bool past_grace(std::chrono::steady_clock::time_point down_since,
                std::chrono::steady_clock::time_point now, std::chrono::milliseconds grace);

}  // namespace sumcache::daemon
