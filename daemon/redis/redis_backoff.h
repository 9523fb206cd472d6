#pragma once
// How long RedisLink waits before its next connect attempt: 100 ms doubling to
// a cap (a restarted Redis is back within a second; a long outage costs one
// attempt per cap per link), with jitter so that the nodes that lost one Redis
// together do not all come back in the same millisecond.

#include <chrono>

namespace sumcache::daemon {

inline constexpr std::chrono::milliseconds kRedisBackoffFirst{100};
inline constexpr std::chrono::milliseconds kRedisBackoffMax{5000};

// The cap for a cluster whose members expire after `member_expiry`
// (cluster.redis.member_expiry_ms): a quarter of it, within [kRedisBackoffFirst,
// kRedisBackoffMax]. A Redis that restarted empty has lost every member record;
// the first node back drops a member once Redis has been reachable for
// member_expiry without its heartbeat (daemon/peer/redis_bus_members.cc). Every
// other node's next attempt comes within this cap of Redis being back, and its
// heartbeat as soon as it connects, which leaves three quarters of the expiry
// for that connect and heartbeat: no node is dropped and added again.
std::chrono::milliseconds redis_backoff_max(std::chrono::milliseconds member_expiry);

// The wait before retry `attempt` (0 for the first after a failure or a lost
// connection): min(first * 2^attempt, max), scaled by 0.5 + unit / 2 for a
// `unit` drawn uniformly from [0, 1) ("equal jitter": never less than half).
std::chrono::milliseconds redis_backoff(unsigned attempt, double unit,
                                        std::chrono::milliseconds max = kRedisBackoffMax);

}  // namespace sumcache::daemon
