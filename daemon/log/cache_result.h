#pragma once
// How the cache answered a request: the access log's result code, and the
// key of the per-result counters (daemon/observe/).

#include <cstddef>

namespace sumcache::daemon {

enum class CacheResult {
  miss,
  hit,
  refresh_hit,
  refresh_miss,
  stale_hit,
  collapsed_hit,
  peer_hit,
  owner,  // a miss fetched through the key's owner (cluster.miss_policy "owner")
  pass,
  tunnel,
  error
};
inline constexpr std::size_t kCacheResults = 11;
const char* to_string(CacheResult r);

}  // namespace sumcache::daemon
