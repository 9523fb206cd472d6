#pragma once
// Every figure the admin endpoint shows, copied out at one moment (field by
// field: each is exact, the set is not one instant). /stats, /filter, /peers
// and /metrics are pure functions of it.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "daemon/cache/squid_digest_service.h"
#include "daemon/exchange/upstream_pool.h"
#include "daemon/net/accept_policy.h"
#include "daemon/observe/http2_stats.h"
#include "daemon/observe/latency_histogram.h"
#include "daemon/observe/proxy_stats.h"
#include "daemon/observe/rate_window.h"
#include "daemon/observe/request_metrics.h"
#include "daemon/peer/cluster_invalidations.h"
#include "daemon/peer/icp_counters.h"
#include "daemon/peer/listener_refusals.h"
#include "daemon/peer/peer_status.h"
#include "daemon/peer/redis_bus_stats.h"
#include "daemon/store/store_options.h"
#include "daemon/tls/tls_listener.h"
#include "filters/hashing.h"

namespace sumcache::daemon {

struct RatioFigures {
  const char* name = "";  // "1m", "5m", "since_start"
  WindowFigures window;
  double hit() const;        // local hits / cache lookups; 0 without lookups
  double total_hit() const;  // local and peer hits / cache lookups
  double byte_hit() const;   // bytes of local hits / bytes of cache lookups
  double total_byte_hit() const;
};

struct StatsSnapshot {
  std::string version;
  std::string node_id;
  std::string config_digest;
  double uptime_seconds = 0;

  std::uint64_t requests = 0;
  std::array<std::uint64_t, kCacheResults> results{};
  std::array<std::uint64_t, kCacheResults> result_bytes{};
  std::vector<std::pair<unsigned, std::uint64_t>> statuses;  // non-zero counts, by code
  std::uint64_t memory_hits = 0;
  std::uint64_t disk_hits = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t peer_requests = 0;
  std::uint64_t peer_false_hits = 0;
  std::uint64_t peer_copies_purged = 0;
  std::uint64_t peer_errors = 0;
  std::uint64_t owner_fetches = 0;    // cluster.miss_policy "owner"
  std::uint64_t owner_fallbacks = 0;  // owner fetches that went to the origin after all
  std::array<std::uint64_t, protocol::kPeerAuthReasons> peer_auth_refused{};  // by PeerAuthErrc - 1
  std::uint64_t peer_object_connections = 0;  // the peer object listener (cluster.tls)
  std::array<std::uint64_t, kPeerObjectRefusals> peer_object_refused{};  // by PeerObjectRefusal
  // HTTP/2 to clients (docs/http2.md).
  std::uint64_t http2_connections = 0;
  std::uint64_t http2_streams = 0;
  std::array<std::uint64_t, kHttp2Goaways> http2_goaways{};  // by Http2Goaway
  std::array<std::uint64_t, kHttp2Resets> http2_resets{};    // by Http2Reset
  std::array<RatioFigures, 3> ratios{RatioFigures{"1m", {}}, RatioFigures{"5m", {}},
                                     RatioFigures{"since_start", {}}};
  std::array<HistogramSnapshot, kLatencyClasses> latency;

  StoreStats store;
  std::uint64_t memory_max_bytes = 0;
  bool disk_enabled = false;
  std::uint64_t disk_max_bytes = 0;
  FilterStats filter;
  filters::HashId filter_hash = filters::HashId::xxh3_128;

  std::uint32_t open_connections = 0;
  std::uint64_t refused_connections = 0;
  std::uint64_t upstream_errors = 0;
  std::uint64_t framing_refused_requests = 0;   // RFC 9112 §6, from clients
  std::uint64_t framing_refused_responses = 0;  // and from upstreams
  std::uint64_t upstream_line_too_long = 0;
  std::array<std::uint64_t, 3> refused_destinations{};  // own listener, deny list, peer listener
  std::uint64_t admin_sessions_closed = 0;  // idle ones closed to admit a new connection
  std::uint64_t upstream_truncated = 0;
  // Failed accepts per listener (docs/reliability.md, "Out of descriptors"): the proxy and
  // peer object listeners summed over the workers, the admin's, the peer listener's.
  AcceptCounts proxy_accept_failures{};
  AcceptCounts peer_object_accept_failures{};
  AcceptCounts admin_accept_failures{};
  AcceptCounts peer_listener_accept_failures{};
  std::uint64_t peer_encode_failures = 0;     // own summary and invalidation messages not encoded
  std::uint64_t fills_not_stored = 0;         // cache fills the store refused
  std::uint64_t targeted_fields_invalid = 0;  // targeted cache-control fields ignored as invalid
  std::uint64_t partial_invalid = 0;          // 206s with a bad Content-Range: not stored
  UpstreamPoolStats upstream;                 // summed over the workers' pools
  PeerStatusList peers;
  std::optional<SummaryMemory> summary_memory;          // summary mode only
  std::optional<RefusalCounts> peer_listener_refusals;  // summary mode only
  std::optional<InvalidationStats> invalidations;       // summary mode only
  std::optional<MembershipStats> membership;            // with a cluster
  std::optional<RedisBusStats> redis;                   // cluster.transport "redis"
  std::optional<IcpPeerCounters> icp;                   // icp mode: every peer and stranger
  std::optional<SquidDigestStats> squid_digest;         // cluster.squid_digest.enabled
  std::optional<TlsStats> tls;                          // with a TLS listener

  std::uint64_t result(CacheResult r) const { return results[static_cast<std::size_t>(r)]; }
};

const char* hash_name(filters::HashId id);

}  // namespace sumcache::daemon
