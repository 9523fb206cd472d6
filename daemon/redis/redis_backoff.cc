#include "daemon/redis/redis_backoff.h"

#include <algorithm>

namespace sumcache::daemon {

std::chrono::milliseconds redis_backoff_max(std::chrono::milliseconds member_expiry) {
  return std::clamp(member_expiry / 4, kRedisBackoffFirst, kRedisBackoffMax);
}

std::chrono::milliseconds redis_backoff(unsigned attempt, double unit,
                                        std::chrono::milliseconds max) {
  auto wait = kRedisBackoffFirst;
  for (unsigned i = 0; i < attempt && wait < max; ++i) wait *= 2;
  wait = std::min(wait, max);
  const double scale = 0.5 + std::clamp(unit, 0.0, 1.0) / 2;
  return std::chrono::milliseconds(
      static_cast<long long>(static_cast<double>(wait.count()) * scale));
}

}  // namespace sumcache::daemon
