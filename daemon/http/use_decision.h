#pragma once
// What to do with a stored response for a new request (RFC 9111 §4, §4.2.4,
// §5.2; RFC 5861). One pure function of the stored response's freshness, the
// two sets of directives and the time; the proxy carries out the answer.
//
// Vary matching (vary.h) and method/URI matching come first: decide_use
// assumes the stored response was selected for this request.

#include <chrono>
#include <string_view>

#include "daemon/http/cache_control.h"
#include "daemon/http/freshness.h"

namespace sumcache::daemon {

enum class UseDecision {
  serve_fresh,  // fresh, and meets the request's max-age and min-fresh
  serve_stale,  // stale, but the request's max-stale accepts it (§5.2.1.2)
  // Stale within the response's stale-while-revalidate window: serve it now
  // and revalidate in the background (RFC 5861 §3).
  serve_stale_while_revalidate,
  revalidate,       // send a conditional request (§4.3.1), then serve or replace
  must_fetch,       // validation is needed but impossible (no ETag or
                    // Last-Modified): fetch unconditionally
  gateway_timeout,  // only-if-cached, and nothing usable without upstream:
                    // answer 504 (§5.2.1.7)
};

struct UseResult {
  UseDecision decision = UseDecision::must_fetch;
  // For revalidate and must_fetch: when the upstream answers 500, 502, 503 or
  // 504, or cannot be reached, the stored response may be served instead
  // (stale-if-error of the response or the request, RFC 5861 §4).
  bool stale_if_error = false;
  std::chrono::seconds age{0};  // current_age (§4.2.3), for the Age field
};

// Stale responses are never served, whatever the request or RFC 5861 allow,
// when the response has (unqualified) no-cache, must-revalidate,
// proxy-revalidate or s-maxage (§4.2.4, §5.2.2.10). Response no-cache also
// forces validation of a fresh response (§4, §5.2.2.4); request no-cache, an
// exceeded request max-age or an unmet min-fresh force validation too (§5.2.1).
UseResult decide_use(const StoredFreshness& stored, const ResponseDirectives& response,
                     const RequestDirectives& request, std::chrono::sys_seconds now);

std::string_view to_string(UseDecision decision);

// An upstream answer that stale-if-error may replace with the stored response:
// 500, 502, 503 or 504 (RFC 5861 §4). A 501 is the origin's answer about the
// method, not a failure, and goes to the client.
bool is_stale_if_error_status(unsigned status);

}  // namespace sumcache::daemon
