#include "daemon/cache/invalid_targeted_field.h"

#include <string>

#include "daemon/log/log_limiter.h"

namespace sumcache::daemon {

void note_invalid_targeted_field(WorkerContext& worker, std::string_view field,
                                 std::string_view key) {
  worker.stats.targeted_fields_invalid.fetch_add(1, std::memory_order_relaxed);
  const auto held_back = worker.shared.targeted_log.admit(LogLimiter::Clock::now());
  if (!held_back) return;
  worker.shared.log.warn(
      "ignored " + std::string(field) + " of " + std::string(key.substr(0, 256)) +
      ": not a valid structured Dictionary of cache directives (RFC 9213); the next targeted "
      "field or Cache-Control applies" +
      (*held_back > 0 ? " (" + std::to_string(*held_back) + " more since the last)" : ""));
}

}  // namespace sumcache::daemon
