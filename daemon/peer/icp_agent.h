#pragma once
// The ICP v2 agent (RFC 2186, applied as in RFC 2187) behind sharing mode `icp`: one
// UDP socket that answers the peers' queries and sends ours. Protocol, timeout rule
// and counters: docs/icp.md.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "daemon/log/logger.h"
#include "daemon/net/asio.h"
#include "daemon/peer/icp_counters.h"
#include "daemon/peer/icp_query_state.h"

namespace sumcache::daemon {

struct IcpPeer {
  std::string id;
  udp::endpoint endpoint;  // where the peer's agent is bound: its queries come from here too
  // Another address the peer's datagrams may come from, on the same port: a Squid with
  // udp_outgoing_address sends its queries from there (docs/icp.md).
  std::optional<asio::ip::address> source{};
};

class IcpAgent {
 public:
  using PeerCounters = IcpPeerCounters;

  // lookup(url): would this node serve url fresh from its cache? Called on `executor`'s
  // thread for every peer's query: it must be thread-safe and must not block.
  IcpAgent(asio::any_io_executor executor, udp::endpoint bind, std::vector<IcpPeer> peers,
           std::function<bool(std::string_view url)> lookup, Logger& log);
  ~IcpAgent();  // stop()s
  IcpAgent(const IcpAgent&) = delete;
  IcpAgent& operator=(const IcpAgent&) = delete;

  // Binds and starts answering, once; a failure is logged naming the address. At most
  // kIcpMaxPeers peers.
  std::error_code start();
  // From any thread: pending queries complete with timed_out, later ones at once.
  void stop();
  // From any thread, when the node drains: every peer's query is answered
  // MISS_NOFETCH from now on, since the follow-up request would find no listener.
  void refuse_fetches();
  udp::endpoint local_endpoint() const;

  // Sends ICP_QUERY for url to every peer (or those in `mask`, bit i = peers[i]) and
  // completes at the first HIT, when every queried peer has answered otherwise, or after
  // `timeout`. Thread-safe; the coroutine resumes on its own executor, which must be
  // single-threaded or a strand (a worker's io_context is).
  awaitable<IcpQueryResult> query(std::string url, std::chrono::milliseconds timeout,
                                  std::uint64_t mask = ~0ULL);

  std::vector<PeerCounters> counters() const;  // one per peer, in peers' order
  PeerCounters totals() const;                 // the peers and every other sender

  // The agent's executor must outlive it, as for any Asio object.

 private:
  struct Core;  // shared with pending queries, so that they may outlive the agent
  struct Io;    // the socket: the agent's executor alone touches it
  std::shared_ptr<Core> core_;
  std::shared_ptr<Io> io_;
};

}  // namespace sumcache::daemon
