#include "daemon/http/use_decision.h"

#include <algorithm>

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;

// §4.2.4: explicit directives that forbid serving a stale response. s-maxage
// implies proxy-revalidate for a shared cache (§5.2.2.10).
bool stale_forbidden(const ResponseDirectives& response) {
  return response.no_cache || response.must_revalidate || response.proxy_revalidate ||
         response.s_maxage.has_value();
}

// §5.2.1: request directives that a stored response must satisfy unvalidated.
bool request_demands_validation(const RequestDirectives& request, seconds age, seconds remaining) {
  return request.no_cache || (request.max_age && age > *request.max_age) ||
         (request.min_fresh && remaining < *request.min_fresh);
}

// RFC 5861 §4: either party may allow a stale answer on error.
bool stale_if_error_allows(const ResponseDirectives& response, const RequestDirectives& request,
                           seconds staleness) {
  const auto within = [staleness](const std::optional<seconds>& window) {
    return window && staleness <= *window;
  };
  return within(response.stale_if_error) || within(request.stale_if_error);
}

UseDecision choose(const StoredFreshness& stored, const ResponseDirectives& response,
                   const RequestDirectives& request, seconds age) {
  const seconds remaining = stored.freshness_lifetime - age;
  const seconds staleness = -remaining;
  const UseDecision validate =
      stored.has_validator ? UseDecision::revalidate : UseDecision::must_fetch;
  if (response.no_cache || request_demands_validation(request, age, remaining)) return validate;
  if (remaining > seconds{0}) return UseDecision::serve_fresh;  // §4.2: lifetime > age
  if (stale_forbidden(response)) return validate;
  if (request.max_stale && (!request.max_stale_limit || staleness <= *request.max_stale_limit)) {
    return UseDecision::serve_stale;
  }
  if (response.stale_while_revalidate && staleness <= *response.stale_while_revalidate) {
    return UseDecision::serve_stale_while_revalidate;
  }
  return validate;
}

}  // namespace

UseResult decide_use(const StoredFreshness& stored, const ResponseDirectives& response,
                     const RequestDirectives& request, std::chrono::sys_seconds now) {
  UseResult result;
  result.age = current_age(stored, now);
  result.decision = choose(stored, response, request, result.age);
  const bool upstream =
      result.decision == UseDecision::revalidate || result.decision == UseDecision::must_fetch;
  if (upstream && request.only_if_cached) {
    result.decision = UseDecision::gateway_timeout;
  } else if (upstream && !stale_forbidden(response)) {
    const seconds staleness = std::max(seconds{0}, result.age - stored.freshness_lifetime);
    result.stale_if_error = stale_if_error_allows(response, request, staleness);
  }
  return result;
}

std::string_view to_string(UseDecision decision) {
  switch (decision) {
    case UseDecision::serve_fresh:
      return "serve_fresh";
    case UseDecision::serve_stale:
      return "serve_stale";
    case UseDecision::serve_stale_while_revalidate:
      return "serve_stale_while_revalidate";
    case UseDecision::revalidate:
      return "revalidate";
    case UseDecision::must_fetch:
      return "must_fetch";
    case UseDecision::gateway_timeout:
      return "gateway_timeout";
  }
  return "unknown";
}

bool is_stale_if_error_status(unsigned status) {
  return status == 500 || status == 502 || status == 503 || status == 504;
}

}  // namespace sumcache::daemon
