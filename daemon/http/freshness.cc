#include "daemon/http/freshness.h"

#include <algorithm>

#include "daemon/http/cacheability.h"
#include "daemon/http/field_value.h"
#include "daemon/http/http_date.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;
using std::chrono::sys_seconds;

std::optional<sys_seconds> date_field(const HeaderList& fields, std::string_view name,
                                      sys_seconds now) {
  const auto value = first_value(fields, name);
  // A sloppy origin's Expires, Date and Last-Modified (http_date.h).
  return value ? parse_http_date_any_case(*value, now) : std::nullopt;
}

// RFC 9110 §6.6.1: without a (valid) Date, the time the response was received.
sys_seconds date_value(const HeaderList& response, sys_seconds response_time) {
  return date_field(response, "Date", response_time).value_or(response_time);
}

// §5.1: the first member of a list-valued Age; an invalid Age is ignored.
seconds age_value(const HeaderList& response) {
  const auto age = joined_value(response, "Age");
  if (!age) return seconds{0};
  const auto members = split_list(*age);
  if (members.empty()) return seconds{0};
  return parse_delta_seconds(members.front()).value_or(seconds{0});
}

// §4.2.2: a fraction of the time since Last-Modified, capped.
seconds heuristic_lifetime(const HeaderList& response, sys_seconds response_time,
                           const HeuristicPolicy& policy) {
  const auto last_modified = date_field(response, "Last-Modified", response_time);
  if (!last_modified || !(policy.last_modified_fraction > 0)) return seconds{0};
  const seconds since = date_value(response, response_time) - *last_modified;
  if (since <= seconds{0}) return seconds{0};
  const auto scaled = static_cast<double>(since.count()) * policy.last_modified_fraction;
  const auto cap = static_cast<double>(policy.max_lifetime.count());
  return seconds{static_cast<std::int64_t>(std::min(scaled, cap))};
}

}  // namespace

seconds corrected_initial_age(const HeaderList& response, ExchangeTimes times) {
  const seconds apparent_age =
      std::max(seconds{0}, times.response_time - date_value(response, times.response_time));
  // A response received before its request was sent means a clock step; a
  // negative delay would only hide age, so it counts as none.
  const seconds response_delay = std::max(seconds{0}, times.response_time - times.request_time);
  const seconds corrected_age_value = age_value(response) + response_delay;
  return std::max(apparent_age, corrected_age_value);
}

sys_seconds generated_at(const StoredFreshness& stored) {
  return stored.response_time - stored.corrected_initial_age;
}

seconds current_age(const StoredFreshness& stored, sys_seconds now) {
  const seconds resident_time = std::max(seconds{0}, now - stored.response_time);
  return stored.corrected_initial_age + resident_time;
}

seconds freshness_lifetime(int status, const HeaderList& response,
                           const ResponseDirectives& directives, sys_seconds response_time,
                           const HeuristicPolicy& policy) {
  if (directives.s_maxage) return *directives.s_maxage;
  if (directives.max_age) return *directives.max_age;
  if (!directives.from_targeted_field && has_field(response, "Expires")) {
    // §4.2.1: with two Expires lines the response is considered stale;
    // §5.3: an invalid date (such as "0") is a time in the past.
    if (count_fields(response, "Expires") > 1) return seconds{0};
    const auto expires = date_field(response, "Expires", response_time);
    if (!expires) return seconds{0};
    return std::max(seconds{0}, *expires - date_value(response, response_time));
  }
  if (!is_heuristically_cacheable(status) && !directives.is_public) return seconds{0};
  return heuristic_lifetime(response, response_time, policy);
}

StoredFreshness stored_freshness(int status, const HeaderList& response,
                                 const ResponseDirectives& directives, ExchangeTimes times,
                                 const HeuristicPolicy& policy) {
  return StoredFreshness{
      .response_time = times.response_time,
      .corrected_initial_age = corrected_initial_age(response, times),
      .freshness_lifetime =
          freshness_lifetime(status, response, directives, times.response_time, policy),
      .has_validator = has_field(response, "ETag") || has_field(response, "Last-Modified"),
  };
}

}  // namespace sumcache::daemon
