#pragma once
// A worker's request-path counters: one set per worker, written by that
// worker's thread alone with relaxed atomics (uncontended: no other core
// writes the line) and summed by the admin when /stats or /metrics is read.

#include <array>
#include <atomic>
#include <cstdint>
#include <system_error>

#include "daemon/http/message_framing.h"
#include "daemon/observe/http2_stats.h"
#include "daemon/log/cache_result.h"
#include "protocol/peer_auth_error.h"

namespace sumcache::daemon {

// Why the peer object listener refused a connection or a request: a source
// address that is not a peer's, a TLS handshake that failed or did not finish
// in cluster.peer_head_timeout_ms, a request that is not a verified peer's.
enum class PeerObjectRefusal { address, handshake, not_peer };
inline constexpr std::size_t kPeerObjectRefusals = 3;
const char* to_string(PeerObjectRefusal r);

struct ProxyStats {
  std::atomic<std::uint64_t> requests{0};
  std::array<std::atomic<std::uint64_t>, kCacheResults> results{};
  std::atomic<std::uint64_t> bytes_in{0};
  std::atomic<std::uint64_t> bytes_out{0};
  std::atomic<std::uint64_t> upstream_errors{0};
  // Bodies upstream closed or stalled on mid-way, after the head was relayed.
  std::atomic<std::uint64_t> upstream_truncated{0};
  // Responses fetched to fill the cache that the store refused (store_on_fill.h).
  std::atomic<std::uint64_t> fills_not_stored{0};
  // Responses whose targeted cache-control field was invalid and ignored
  // (RFC 9213 §2.2; cache/invalid_targeted_field.h).
  std::atomic<std::uint64_t> targeted_fields_invalid{0};
  std::atomic<std::uint64_t> refused_connections{0};
  // Upstream connects refused by destination: [0] own listener, [1] deny list,
  // [2] a peer's private listener.
  std::array<std::atomic<std::uint64_t>, 3> refused_destinations{};
  // Idle admin sessions closed to make room for a new admin connection.
  std::atomic<std::uint64_t> admin_sessions_closed{0};
  // Object requests to peers that a summary or ICP claimed, and how they ended.
  std::atomic<std::uint64_t> peer_requests{0};
  std::atomic<std::uint64_t> peer_false_hits{0};  // the peer answered 504
  // Copies refused for a tag of a standing tag purge (docs/peers.md).
  std::atomic<std::uint64_t> peer_copies_purged{0};
  std::atomic<std::uint64_t> peer_errors{0};  // no answer in time, or a bad one
  // Misses sent to their owner (cluster.miss_policy "owner"), and those that
  // went to the origin after all: the owner failed or did not answer in time.
  std::atomic<std::uint64_t> owner_fetches{0};
  std::atomic<std::uint64_t> owner_fallbacks{0};
  // Requests on the proxy port refused as peer requests that did not verify,
  // by PeerAuthErrc (index value - 1).
  std::array<std::atomic<std::uint64_t>, protocol::kPeerAuthReasons> peer_auth_refused{};
  // Messages refused for their framing (RFC 9112 §6): requests from clients
  // (400, 501, 505), and responses from upstreams (answered 502).
  std::atomic<std::uint64_t> framing_refused_requests{0};
  std::atomic<std::uint64_t> framing_refused_responses{0};
  // Upstream responses ended at upstream_read_bound: a chunk line or trailer
  // section that did not end (FramingErrc::line_too_long).
  std::atomic<std::uint64_t> upstream_line_too_long{0};
  // The peer object listener (cluster.tls): connections that completed the
  // handshake, and connections or requests refused, by PeerObjectRefusal.
  std::atomic<std::uint64_t> peer_object_connections{0};
  std::array<std::atomic<std::uint64_t>, kPeerObjectRefusals> peer_object_refused{};
  Http2Stats http2;

  void count_peer_object_refusal(PeerObjectRefusal why) {
    peer_object_refused[static_cast<std::size_t>(why)].fetch_add(1, std::memory_order_relaxed);
  }

  void count(CacheResult r) {
    results[static_cast<std::size_t>(r)].fetch_add(1, std::memory_order_relaxed);
  }
  // A failed upstream exchange; one that failed on the response's framing is counted as such too.
  void count_upstream_error(std::error_code ec) {
    upstream_errors.fetch_add(1, std::memory_order_relaxed);
    if (ec.category() == framing_category()) {
      framing_refused_responses.fetch_add(1, std::memory_order_relaxed);
    }
    count_line_too_long(ec);
  }
  void count_line_too_long(std::error_code ec) {
    if (ec == FramingErrc::line_too_long) {
      upstream_line_too_long.fetch_add(1, std::memory_order_relaxed);
    }
  }
};

}  // namespace sumcache::daemon
