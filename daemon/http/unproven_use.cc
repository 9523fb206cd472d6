#include "daemon/http/unproven_use.h"

namespace sumcache::daemon {

bool is_unproven(std::chrono::sys_seconds response_time, std::int64_t unproven_before_ms) {
  const auto at_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(response_time.time_since_epoch());
  return at_ms.count() < unproven_before_ms;
}

UseResult unproven_use(UseResult use, bool has_validator, bool only_if_cached) {
  use.stale_if_error = false;
  switch (use.decision) {
    case UseDecision::serve_fresh:
    case UseDecision::serve_stale:
    case UseDecision::serve_stale_while_revalidate:
    case UseDecision::revalidate:
      if (only_if_cached) {
        use.decision = UseDecision::gateway_timeout;
      } else {
        use.decision = has_validator ? UseDecision::revalidate : UseDecision::must_fetch;
      }
      break;
    case UseDecision::must_fetch:
    case UseDecision::gateway_timeout:
      break;
  }
  return use;
}

}  // namespace sumcache::daemon
