#pragma once
// Cache-Control directives (RFC 9111 §5.2) plus stale-while-revalidate and
// stale-if-error (RFC 5861), parsed once per message into plain structs.
//
// Parsing is tolerant: directive names are case-insensitive, arguments may be
// tokens or quoted strings (§5.2), unknown directives are ignored (§5.2.3).
// Where a value is invalid or a directive repeats with different values, the
// most restrictive reading wins (§4.2.1):
//   response max-age / s-maxage: invalid or conflicting -> 0 (stale at once);
//   request max-age: invalid -> 0, repeated -> the smallest;
//   min-fresh: repeated -> the largest; max-stale: repeated -> the smallest,
//   an unlimited max-stale only when no limit is given;
//   stale-while-revalidate, stale-if-error, max-stale, min-fresh with an invalid
//   value -> ignored (no extra permission, no extra demand).
//
// Qualified no-cache and private name fields that headers_to_store()
// (cacheability.h) keeps out of the store; only the unqualified forms affect
// the decisions. no-transform and immutable affect none: we never transform
// content, and immutable (RFC 8246) is about clients' reloads.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/http/header_list.h"

namespace sumcache::daemon {

struct ResponseDirectives {
  std::optional<std::chrono::seconds> max_age;                 // §5.2.2.1
  std::optional<std::chrono::seconds> s_maxage;                // §5.2.2.10
  bool no_cache = false;                                       // §5.2.2.4, unqualified form
  std::vector<std::string> no_cache_fields;                    // qualified form, lower-case names
  bool no_store = false;                                       // §5.2.2.5
  bool is_private = false;                                     // §5.2.2.7, unqualified form
  std::vector<std::string> private_fields;                     // qualified form, lower-case names
  bool is_public = false;                                      // §5.2.2.9
  bool must_revalidate = false;                                // §5.2.2.2
  bool proxy_revalidate = false;                               // §5.2.2.8
  bool no_transform = false;                                   // §5.2.2.6
  bool must_understand = false;                                // §5.2.2.3
  bool immutable = false;                                      // RFC 8246
  std::optional<std::chrono::seconds> stale_while_revalidate;  // RFC 5861 §3
  std::optional<std::chrono::seconds> stale_if_error;          // RFC 5861 §4
  // Read from a targeted field instead of Cache-Control: Expires is then
  // ignored too (RFC 9213 §2.2; targeted_cache_control.h). Only freshness and
  // storability read it, when the response is stored; the meta does not keep it.
  bool from_targeted_field = false;
  friend bool operator==(const ResponseDirectives&, const ResponseDirectives&) = default;
};

struct RequestDirectives {
  std::optional<std::chrono::seconds> max_age;          // §5.2.1.1
  bool max_stale = false;                               // §5.2.1.2
  std::optional<std::chrono::seconds> max_stale_limit;  // absent: any staleness
  std::optional<std::chrono::seconds> min_fresh;        // §5.2.1.3
  bool no_cache = false;                                // §5.2.1.4 (or Pragma, §5.4)
  bool no_store = false;                                // §5.2.1.5
  bool no_transform = false;                            // §5.2.1.6
  bool only_if_cached = false;                          // §5.2.1.7
  std::optional<std::chrono::seconds> stale_if_error;   // RFC 5861 §4
};

// From a Cache-Control field value (all lines joined by ", ").
ResponseDirectives parse_response_directives(std::string_view cache_control);
RequestDirectives parse_request_directives(std::string_view cache_control);

// From a header section: joins the Cache-Control lines. For requests,
// "Pragma: no-cache" counts as no-cache only when there is no Cache-Control
// field at all (RFC 9111 §5.4, RFC 7234 §5.4).
ResponseDirectives response_directives(const HeaderList& response);
RequestDirectives request_directives(const HeaderList& request);

}  // namespace sumcache::daemon
