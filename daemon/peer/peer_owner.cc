// PeerService's side of cluster.miss_policy "owner" (docs/peers.md, "Miss
// policy"): which live node owns a key, and an owner that failed.

#include <array>

#include "daemon/peer/peer_service.h"
#include "daemon/peer/rendezvous_owner.h"

namespace sumcache::daemon {

std::optional<std::size_t> PeerService::owner_of(std::string_view key) const {
  // Live: this node, and the peers a miss may go to (up or suspect, with a
  // fresh summary in summary mode). A down peer owns nothing: its keys go to
  // the others until it is back.
  constexpr std::size_t kMaxNodes = filters::SummaryDirectory::kMaxPeers + 1;
  std::array<std::string_view, kMaxNodes> ids;
  std::array<std::size_t, kMaxNodes> peer_index;
  std::size_t n = 0;
  ids[n++] = node_id_;
  const std::uint64_t eligible = table_.eligible();
  for (std::size_t i = 0; i < table_.size() && n < kMaxNodes; ++i) {
    const Peer& p = table_.at(i);
    if ((eligible >> p.slot & 1U) == 0) continue;
    peer_index[n] = i;
    ids[n++] = p.config.id;
  }
  const std::size_t owner = rendezvous_owner(key, std::span(ids.data(), n));
  if (owner == 0) return std::nullopt;
  return peer_index[owner];
}

void PeerService::report_owner_failure(std::size_t i, std::string_view error) {
  table_.record_failure(i, "owner fetch: " + std::string(error), std::chrono::steady_clock::now());
}

}  // namespace sumcache::daemon
