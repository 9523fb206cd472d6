#pragma once
// May a shared cache store this response? RFC 9111 §3, for a shared cache
// that stores responses to GET only, complete or, when the caller keeps them,
// partial (206, §3.3) (HEAD is answered from a stored
// GET, RFC 9110 §9.3.2). And which of its fields go into the store (§3.1).
//
// Set-Cookie: a response that carries it is stored with it, and the stored
// cookie is served with every hit. §3 sets no condition on Set-Cookie; the
// origin marks per-user responses "private" (§7.3 on sensitive information).
// Two ways keep a cookie out: "private" (nothing stored) and
// private="set-cookie" or no-cache="set-cookie" (the response is stored
// without that field, §3.1). docs/caching.md compares Squid, Varnish, nginx.

#include <chrono>
#include <cstdint>
#include <string_view>

#include "daemon/http/cache_control.h"
#include "daemon/http/header_list.h"

namespace sumcache::daemon {

// Why a response is or is not storable; the first rule that fails, in the
// order listed.
enum class StoreReason {
  storable,
  method_not_get,         // only GET responses are stored
  status_not_final,       // 1xx (§3: final status only)
  status_not_understood,  // 206 (unless partial_allowed), 304, or
                          // must-understand with an unknown status
  no_store_request,       // request no-store (§5.2.1.5)
  no_store_response,      // response no-store (§5.2.2.5), unless must-understand
  private_response,       // unqualified private (§5.2.2.7)
  authorization,          // request Authorization without public,
                          // s-maxage or must-revalidate (§3.5)
  vary_star,              // "Vary: *" can never be reused (§4.1)
  no_freshness_info,      // no explicit expiry, not public, status not
                          // heuristically cacheable (§3, RFC 9110 §15.1)
  too_large,              // Content-Length above the limit, or unreadable
  transfer_coded,         // a transfer coding other than chunked: the body
                          // arrives coded (RFC 9112 §6.3 item 4) and a hit
                          // could not say how, the coding being hop-by-hop
};

std::string_view to_string(StoreReason reason);

struct StoreInput {
  std::string_view method;
  const HeaderList& request;
  const RequestDirectives& request_directives;
  int status;
  const HeaderList& response;
  const ResponseDirectives& response_directives;
  // Responses whose Content-Length exceeds this are refused; a response
  // without Content-Length passes here and the store enforces the limit
  // while the body arrives.
  std::uint64_t max_object_bytes;
  // A 206 answering a single-range GET may be stored as a partial response
  // (§3.3) by a caller that keeps such responses (daemon/cache/partial_table.h);
  // content_range.h then checks its Content-Range.
  bool partial_allowed = false;
};

StoreReason storability(const StoreInput& input);

// RFC 9110 §15.1: status codes that are heuristically cacheable.
bool is_heuristically_cacheable(int status);

// The fields a stored response keeps (§3.1): without hop-by-hop fields and
// those named in Connection; without Proxy-Authenticate,
// Proxy-Authentication-Info and Proxy-Authorization; without the fields named
// by qualified no-cache or private. A response without Date gets one holding
// `response_time` (RFC 9110 §6.6.1: a cache must add it).
HeaderList headers_to_store(HeaderList response, const ResponseDirectives& directives,
                            std::chrono::sys_seconds response_time);

}  // namespace sumcache::daemon
