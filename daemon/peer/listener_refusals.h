#pragma once
// Why the peer listener refused a connection or a request, counted per reason
// for /metrics (sumcache_peer_listener_refused_total{reason=...}).

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace sumcache::daemon {

enum class Refusal : std::uint8_t {
  address,      // source address is not a peer's: closed on accept
  connections,  // over cluster.peer_max_connections: closed on accept
  head,         // no complete head before peer_head_timeout_ms, or a malformed one
  route,        // unknown path or method (404, 405)
  node,         // the verified head's node is not a configured peer (403)
  length,       // no Content-Length, Transfer-Encoding, too short (411, 400)
  too_large,    // declared length or the message's sizes over the peer's bound (413)
  rate,         // over the peer's summary rate, or one of its bodies still being read (429)
  header,       // the message's fixed header: bad magic, version, or another node's id (400)
  auth,         // Sumcache-Channel-Auth missing, malformed, forged, stale, for another node,
                // or its len not the Content-Length (401); or at or below the peer's floor
  replayed,     // a verified head whose nonce was seen already (401)
  evicted,      // an unverified connection closed to make room for a new one at the cap
  taken_over,   // a body still being read, cancelled for a newer verified one of that peer
  stale_epoch,  // an epoch below the one held for the sender: a replay (403 summary, 409 batch)
};
inline constexpr std::size_t kRefusalKinds = 14;

const char* to_string(Refusal r);

using RefusalCounts = std::array<std::uint64_t, kRefusalKinds>;

class RefusalCounters {
 public:
  void add(Refusal r) {
    counts_[static_cast<std::size_t>(r)].fetch_add(1, std::memory_order_relaxed);
  }
  RefusalCounts snapshot() const {
    RefusalCounts out{};
    for (std::size_t i = 0; i < kRefusalKinds; ++i)
      out[i] = counts_[i].load(std::memory_order_relaxed);
    return out;
  }

 private:
  std::array<std::atomic<std::uint64_t>, kRefusalKinds> counts_{};
};

}  // namespace sumcache::daemon
