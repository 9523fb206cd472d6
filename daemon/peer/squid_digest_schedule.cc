#include "daemon/peer/squid_digest_schedule.h"

#include <algorithm>

namespace sumcache::daemon {

using std::chrono::milliseconds;

DigestSchedule digest_schedule(milliseconds update_max_interval, milliseconds summary_expiry) {
  return {update_max_interval, std::max(update_max_interval, summary_expiry / 2)};
}

milliseconds delay_after_answer(std::optional<std::chrono::sys_seconds> expires,
                                std::optional<std::chrono::sys_seconds> date,
                                std::chrono::sys_seconds now, const DigestSchedule& schedule) {
  const milliseconds max_gap = std::max(schedule.max_gap, schedule.min_gap);
  if (!expires) return schedule.min_gap;
  const milliseconds left = *expires - date.value_or(now);
  return std::clamp(left, schedule.min_gap, max_gap);
}

milliseconds delay_after_failure(unsigned failures, const DigestSchedule& schedule) {
  const milliseconds max_gap = std::max(schedule.max_gap, schedule.min_gap);
  milliseconds delay = schedule.min_gap;
  for (unsigned i = 1; i < failures && delay < max_gap; ++i) delay *= 2;
  return std::min(delay, max_gap);
}

}  // namespace sumcache::daemon
