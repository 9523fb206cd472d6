#pragma once
// Freshness lifetime (RFC 9111 §4.2.1, §4.2.2) and age (§4.2.3) of a stored
// response. Everything that does not change while the response sits in the
// store is computed once, when it is stored or refreshed by a 304, into
// StoredFreshness; at use time only `now` is new.

#include <chrono>

#include "daemon/http/cache_control.h"
#include "daemon/http/header_list.h"

namespace sumcache::daemon {

// §4.2.2: heuristic freshness is this fraction of (Date - Last-Modified),
// capped. The fraction is the RFC's "typical setting"; docs/caching.md
// compares other caches' defaults.
struct HeuristicPolicy {
  double last_modified_fraction = 0.1;
  std::chrono::seconds max_lifetime = std::chrono::hours{24};
};

// When the exchange that produced the response happened, by our clock.
struct ExchangeTimes {
  std::chrono::sys_seconds request_time;   // the request was sent upstream
  std::chrono::sys_seconds response_time;  // the response was received
};

struct StoredFreshness {
  std::chrono::sys_seconds response_time;
  std::chrono::seconds corrected_initial_age{0};  // §4.2.3
  std::chrono::seconds freshness_lifetime{0};     // §4.2.1
  bool has_validator = false;  // ETag or Last-Modified: a conditional request is possible
  friend bool operator==(const StoredFreshness&, const StoredFreshness&) = default;
};

// §4.2.3, the terms of which are:
//   apparent_age          = max(0, response_time - date_value)
//   response_delay        = response_time - request_time
//   corrected_age_value   = age_value + response_delay
//   corrected_initial_age = max(apparent_age, corrected_age_value)
// age_value is the Age field (first member; absent or invalid is 0, §5.1);
// date_value is Date, or response_time when Date is absent or invalid
// (RFC 9110 §6.6.1).
std::chrono::seconds corrected_initial_age(const HeaderList& response, ExchangeTimes times);

// §4: of several stored responses that suit one request, the most recent is
// used. Its generation time is estimated as response_time less the corrected
// initial age, which, unlike Date alone, also counts an upstream cache's Age.
std::chrono::sys_seconds generated_at(const StoredFreshness& stored);

// §4.2.3: current_age = corrected_initial_age + resident_time,
// resident_time = now - response_time (never negative).
std::chrono::seconds current_age(const StoredFreshness& stored, std::chrono::sys_seconds now);

// §4.2.1, for a shared cache: s-maxage, else max-age, else Expires - Date
// (an invalid Expires, or more than one, is already expired, §5.3; ignored
// when the directives came from a targeted field, RFC 9213 §2.2), else the
// heuristic where §4.2.2 allows one (no explicit expiry; status heuristically
// cacheable or "public"), else 0.
std::chrono::seconds freshness_lifetime(int status, const HeaderList& response,
                                        const ResponseDirectives& directives,
                                        std::chrono::sys_seconds response_time,
                                        const HeuristicPolicy& policy);

// All of the above for a response being stored. After a 304 the proxy calls it
// again with the merged header list and the revalidation's exchange times.
StoredFreshness stored_freshness(int status, const HeaderList& response,
                                 const ResponseDirectives& directives, ExchangeTimes times,
                                 const HeuristicPolicy& policy);

}  // namespace sumcache::daemon
