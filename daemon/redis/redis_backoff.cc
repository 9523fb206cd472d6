#include "daemon/redis/redis_backoff.h"

#include <algorithm>

namespace sumcache::daemon {

std::chrono::milliseconds redis_backoff(unsigned attempt, double unit) {
  auto wait = kRedisBackoffFirst;
  for (unsigned i = 0; i < attempt && wait < kRedisBackoffMax; ++i) wait *= 2;
  wait = std::min(wait, kRedisBackoffMax);
  const double scale = 0.5 + std::clamp(unit, 0.0, 1.0) / 2;
  return std::chrono::milliseconds(
      static_cast<long long>(static_cast<double>(wait.count()) * scale));
}

}  // namespace sumcache::daemon
