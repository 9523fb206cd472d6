#pragma once
// How long RedisLink waits before its next connect attempt: 100 ms doubling to
// 5 s (a restarted Redis is back within a second; a long outage costs one
// attempt per 5 s per link), with jitter so that the nodes that lost one Redis
// together do not all come back in the same millisecond.

#include <chrono>

namespace sumcache::daemon {

inline constexpr std::chrono::milliseconds kRedisBackoffFirst{100};
inline constexpr std::chrono::milliseconds kRedisBackoffMax{5000};

// The wait before retry `attempt` (0 for the first after a failure or a lost
// connection): min(first * 2^attempt, max), scaled by 0.5 + unit / 2 for a
// `unit` drawn uniformly from [0, 1) ("equal jitter": never less than half).
std::chrono::milliseconds redis_backoff(unsigned attempt, double unit);

}  // namespace sumcache::daemon
