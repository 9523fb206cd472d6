#include "daemon/peer/icp_query_state.h"

#include <bit>
#include <utility>

namespace sumcache::daemon {
namespace {

std::uint64_t bit(std::size_t peer) { return std::uint64_t{1} << peer; }

}  // namespace

IcpQueryState start_icp_query(std::uint64_t mask, std::size_t peer_count) {
  IcpQueryState query;
  const std::uint64_t all = peer_count >= kIcpMaxPeers ? ~std::uint64_t{0} : bit(peer_count) - 1;
  query.awaiting = mask & all;
  query.result.queried = static_cast<std::size_t>(std::popcount(query.awaiting));
  query.done = query.awaiting == 0;
  return query;
}

IcpReplyEffect record_icp_reply(IcpQueryState& query, std::size_t peer, bool hit) {
  if (query.done || peer >= kIcpMaxPeers || (query.awaiting & bit(peer)) == 0) {
    return IcpReplyEffect::unexpected;
  }
  query.awaiting &= ~bit(peer);
  query.result.answered |= bit(peer);
  ++query.result.replies;
  if (hit) query.result.hit = peer;
  query.done = hit || query.awaiting == 0;
  return query.done ? IcpReplyEffect::completed : IcpReplyEffect::counted;
}

bool record_icp_send_failure(IcpQueryState& query, std::size_t peer) {
  if (query.done || peer >= kIcpMaxPeers || (query.awaiting & bit(peer)) == 0) return false;
  query.awaiting &= ~bit(peer);
  --query.result.queried;
  query.done = query.awaiting == 0;
  return query.done;
}

std::uint64_t expire_icp_query(IcpQueryState& query) {
  if (query.done) return 0;
  query.done = true;
  query.result.timed_out = true;
  query.result.silent = std::exchange(query.awaiting, 0);
  return query.result.silent;
}

}  // namespace sumcache::daemon
