#pragma once
// Validation (RFC 9111 §4.3): the conditional request we send to refresh a
// stored response, a client's conditional request answered from the store,
// and a stored response freshened by a 304.

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "daemon/http/header_list.h"

namespace sumcache::daemon {

// §4.3.1: If-None-Match from the stored ETag and If-Modified-Since from the
// stored Last-Modified, values copied verbatim; empty when the stored
// response has neither (then see UseDecision::must_fetch).
HeaderList conditional_headers(const HeaderList& stored_response);

enum class ConditionalOutcome {
  send_full,          // no condition we evaluate, or it holds: send the stored response
  send_not_modified,  // send 304 with not_modified_fields()
  forward,            // If-Match or If-Unmodified-Since, or a method other than
                      // GET/HEAD: not for a cache to decide (§4.3.2)
};

// §4.3.2 with RFC 9110 §13.2.2 precedence: If-None-Match (weak comparison;
// "*" matches the stored response), else If-Modified-Since against the stored
// Last-Modified, else its Date. An invalid If-Modified-Since is ignored
// (RFC 9110 §13.1.3), as is one sent on more than one line (a list of dates
// is not a date). `now` only resolves RFC 850 two-digit years.
ConditionalOutcome evaluate_conditional(std::string_view method, const HeaderList& request,
                                        const HeaderList& stored_response,
                                        std::chrono::sys_seconds now);

// RFC 9110 §13.2.1: preconditions are ignored when the response without them
// would not be 2xx (nor 412): a stored 404 or 301 is sent as it is, never
// turned into a 304.
bool preconditions_apply(int stored_status);

// RFC 9110 §15.4.5: the stored fields a 304 repeats: Cache-Control,
// Content-Location, Date, ETag, Expires, Vary, and Last-Modified when there
// is no ETag.
HeaderList not_modified_fields(const HeaderList& stored_response);

// §4.3.4: the stored fields updated by a 304. Each field the 304 carries
// replaces all stored lines of that name, except Content-Length and the
// fields §3.1 keeps out of the store (headers_to_store). A 304 without Date is
// dated `response_time` first (RFC 9110 §6.6.1), so that the refreshed age
// starts from the revalidation.
//
// nullopt when the 304 describes another representation (§4.3.3): its ETag
// does not match the stored one (strongly if it is strong, weakly if weak),
// or, without ETag, its Last-Modified differs. The proxy then fetches anew.
// `targeted_fields` (targeted_cache_control.h) decide which directives name
// the fields kept out.
std::optional<HeaderList> freshen_stored_headers(const HeaderList& stored_response,
                                                 const HeaderList& not_modified,
                                                 std::chrono::sys_seconds response_time,
                                                 std::span<const std::string> targeted_fields);

}  // namespace sumcache::daemon
