#pragma once
// What the Redis transport counts (docs/peers.md, "Redis transport"), copied
// out for /peers and /metrics.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sumcache::daemon {

// Why something read from Redis was refused; each a label of
// sumcache_redis_messages_refused_total.
enum class RedisRefusal {
  member_bad_tag,       // a member record whose HMAC tag is not the cluster's
  member_malformed,     // a member record that is not one (shape, fields, id)
  message_bad_tag,      // a summary message whose tag does not verify
  message_malformed,    // a summary message that does not decode
  message_wrong_node,   // signed by another node than the stream's
  message_unusable,     // decoded, but the directory refused it (size, hash)
  entry_malformed,      // a stream entry not as written (ID, fields)
  reply_malformed,      // an XREAD, HGETALL or TIME reply of the wrong shape
  message_stale_epoch,  // a summary message of an epoch below its member record's or the one held
  member_stale_epoch,   // a member record whose epoch is below the one held (a replayed record)
};
inline constexpr std::size_t kRedisRefusals = 10;
const char* to_string(RedisRefusal r);

struct RedisServerStats {
  std::string server;  // "host:port", the metrics' server label
  bool up = false;     // both links (commands, blocking reads) connected
  std::uint64_t connects = 0;
  std::uint64_t connect_failures = 0;
  std::uint64_t commands = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
};

struct RedisBusStats {
  std::vector<RedisServerStats> servers;
  std::uint64_t members = 0;  // live verified members, this node included
  std::uint64_t published_full = 0;
  std::uint64_t published_delta = 0;
  std::uint64_t read_full = 0;
  std::uint64_t read_delta = 0;
  std::array<std::uint64_t, kRedisRefusals> refused{};  // by RedisRefusal
  std::uint64_t resyncs = 0;                            // a gap: the full read again
  std::uint64_t outages = 0;  // heartbeats, reads and writes that found Redis away
};

}  // namespace sumcache::daemon
