#pragma once
// What an ICP agent counts, per peer and in total: one field list, instantiated
// plain (a snapshot) and atomic (updated from any thread without a lock).

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "daemon/store/store_counters.h"  // bump()

namespace sumcache::daemon {

template <class T>
struct IcpCountersOf {
  // Our queries and their replies.
  T queries_sent{};
  T hits_received{};
  T misses_received{};  // MISS, MISS_NOFETCH, ERR and the echoes: anything but HIT and DENIED
  T denied_received{};
  T late_replies{};  // after their query completed, or for no query of ours
  T unanswered{};    // queries this peer left unanswered until the timeout
  // Their queries and our replies.
  T queries_received{};
  T hits_sent{};
  T misses_sent{};  // MISS, and MISS_NOFETCH while draining
  T denied_sent{};  // to senders that are not peers (RFC 2186's ICP_OP_DENIED)
  // Both ways.
  T bytes_sent{};
  T bytes_received{};
  T rejected{};     // malformed datagrams, and replies that do not echo the query's URL
  T send_errors{};  // datagrams the socket refused
};

template <class T>
constexpr auto icp_counter_fields() {
  using C = IcpCountersOf<T>;
  return std::array{&C::queries_sent, &C::hits_received, &C::misses_received,  &C::denied_received,
                    &C::late_replies, &C::unanswered,    &C::queries_received, &C::hits_sent,
                    &C::misses_sent,  &C::denied_sent,   &C::bytes_sent,       &C::bytes_received,
                    &C::rejected,     &C::send_errors};
}

struct IcpPeerCounters : IcpCountersOf<std::uint64_t> {
  std::string id;  // the peer's id; "" for the totals
  // The peer service's health rule (docs/icp.md, "Dead peers"), in the totals
  // only: peers marked down after a query they left unanswered, and the
  // probes' peers that answered or stayed silent.
  std::uint64_t marked_down = 0;
  std::uint64_t probes_answered = 0;
  std::uint64_t probes_unanswered = 0;
  std::uint64_t replies_received() const {
    return hits_received + misses_received + denied_received;
  }
  std::uint64_t replies_sent() const { return hits_sent + misses_sent + denied_sent; }
};

using IcpAtomicCounters = IcpCountersOf<std::atomic<std::uint64_t>>;

// Adds `from` into `into`, field by field.
inline void add_icp_counters(const IcpAtomicCounters& from, IcpPeerCounters& into) {
  constexpr auto plain = icp_counter_fields<std::uint64_t>();
  constexpr auto atomic = icp_counter_fields<std::atomic<std::uint64_t>>();
  for (std::size_t i = 0; i < plain.size(); ++i) {
    into.*plain[i] += (from.*atomic[i]).load(std::memory_order_relaxed);
  }
}

}  // namespace sumcache::daemon
