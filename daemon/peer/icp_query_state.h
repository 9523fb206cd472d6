#pragma once
// One outstanding ICP query as a plain struct, and the rules that decide when it
// is complete: at the first HIT (the one we fetch from, as Squid does), once every
// queried peer has answered otherwise, or at the timeout, which RFC 2187 leaves to the
// requester since UDP may lose either datagram. Pure functions; the agent locks around them.

#include <cstddef>
#include <cstdint>
#include <optional>

namespace sumcache::daemon {

struct IcpQueryResult {
  std::optional<std::size_t> hit;  // index into the agent's peers of the first HIT
  std::size_t replies = 0;         // replies counted before completion
  std::size_t queried = 0;         // peers the query reached the socket for
  bool timed_out = false;          // completed by the timeout or by stop()
  bool stopped = false;            // completed by stop(): says nothing of the peers
  // Bit i: peers[i] answered (anything, counted toward the query); left the
  // query unanswered until its timeout. A peer the query stopped waiting for
  // (the first HIT came from another) is in neither.
  std::uint64_t answered = 0;
  std::uint64_t silent = 0;
};

struct IcpQueryState {
  std::uint64_t awaiting = 0;  // bit i: peers[i] was queried and has not answered
  IcpQueryResult result;
  bool done = false;
};

// Peers are bits of a 64-bit mask.
inline constexpr std::size_t kIcpMaxPeers = 64;

// The query to the peers in `mask` among `peer_count`; done at once if that is nobody.
IcpQueryState start_icp_query(std::uint64_t mask, std::size_t peer_count);

enum class IcpReplyEffect {
  counted,     // an awaited reply; the query goes on
  completed,   // this reply completed the query
  unexpected,  // the query is done, or this peer was not awaited (a duplicate): a late reply
};
IcpReplyEffect record_icp_reply(IcpQueryState& query, std::size_t peer, bool hit);

// The datagram to `peer` could not be sent: wait for it no longer. True if that
// completed the query.
bool record_icp_send_failure(IcpQueryState& query, std::size_t peer);

// The timeout (or stop()) ends the query; returns the peers that never answered
// (also result.silent).
std::uint64_t expire_icp_query(IcpQueryState& query);

}  // namespace sumcache::daemon
