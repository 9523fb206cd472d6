#include "daemon/http/upstream_replay.h"

#include <array>

namespace sumcache::daemon {

bool is_idempotent_method(std::string_view method) {
  static constexpr std::array<std::string_view, 6> kIdempotent = {"GET",   "HEAD", "OPTIONS",
                                                                  "TRACE", "PUT",  "DELETE"};
  for (std::string_view m : kIdempotent) {
    if (m == method) return true;
  }
  return false;
}

BodyHold planned_body_hold(bool has_body, std::optional<std::uint64_t> content_length) {
  if (!has_body) return BodyHold::none;
  return content_length && *content_length <= kReplayBodyLimit ? BodyHold::whole
                                                               : BodyHold::partial;
}

bool may_replay(std::string_view method, BodyHold body) {
  return is_idempotent_method(method) && body != BodyHold::partial;
}

std::chrono::milliseconds max_idle_for_reuse(bool replayable,
                                             std::chrono::milliseconds unsafe_reuse) {
  return replayable ? std::chrono::milliseconds::max() : unsafe_reuse;
}

bool retry_on_fresh_connection(const FailedAttempt& failed) {
  return failed.reused && !failed.response_seen && failed.replayable && failed.attempt == 0;
}

}  // namespace sumcache::daemon
