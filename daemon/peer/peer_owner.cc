// PeerService's side of cluster.miss_policy "owner" (docs/peers.md, "Miss
// policy"): which live node owns a key, and an owner that failed.

#include <array>
#include <bit>

#include "daemon/peer/peer_service.h"
#include "daemon/peer/rendezvous_owner.h"

namespace sumcache::daemon {

std::shared_ptr<Peer> PeerService::owner_of(std::string_view key) const {
  // Live: this node, and the peers a miss may go to (up or suspect, with a
  // fresh summary in summary mode). A down peer owns nothing: its keys go to
  // the others until it is back. A Squid owns nothing either: it does not
  // share the rendezvous, nor fetch for us (docs/interop.md).
  constexpr std::size_t kMaxNodes = filters::SummaryDirectory::kMaxPeers + 1;
  std::array<std::string_view, kMaxNodes> ids;
  std::array<std::shared_ptr<Peer>, kMaxNodes> live;
  std::size_t n = 0;
  ids[n++] = node_id_;
  for (std::uint64_t eligible = table_.eligible(); eligible != 0; eligible &= eligible - 1) {
    auto peer = table_.get(static_cast<std::size_t>(std::countr_zero(eligible)));
    if (!peer) continue;  // removed since the mask was read
    if (peer->config.protocol == config::PeerProtocol::squid_digest) continue;
    ids[n] = peer->config.id;
    live[n++] = std::move(peer);
  }
  const std::size_t owner = rendezvous_owner(key, std::span(ids.data(), n));
  if (owner == 0) return nullptr;
  return std::move(live[owner]);
}

void PeerService::report_owner_failure(Peer& peer, std::string_view error) {
  table_.record_failure(peer, "owner fetch: " + std::string(error),
                        std::chrono::steady_clock::now());
}

}  // namespace sumcache::daemon
