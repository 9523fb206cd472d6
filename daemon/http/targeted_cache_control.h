#pragma once
// Targeted cache control (RFC 9213): response fields such as CDN-Cache-Control
// that carry cache directives for one class of caches. The cache obeys the
// first field of its list (cache.targeted_fields, in order of precedence,
// §2.1) whose value is a valid, non-empty Dictionary (RFC 8941 §3.2), and then
// ignores Cache-Control and Expires of that response (§2.2). The result is an
// ordinary ResponseDirectives, so storability, freshness and reuse run one
// code path whichever field the directives came from.
//
// A value that is not a Dictionary, or a known directive whose value has the
// wrong type (max-age="60", no-store=?0), makes the whole field ignored: the
// next listed field, else Cache-Control, applies (§2.1: values that violate
// the directive's constraints are not consumed; §2.2: a field with a parsing
// error is ignored). Unknown directives and all parameters are ignored.
// Nothing is removed from the message: targeted fields are stored and
// forwarded as received (§2.2: a cache passes on the fields it uses too).

#include <span>
#include <string>
#include <string_view>

#include "daemon/http/cache_control.h"
#include "daemon/http/header_list.h"

namespace sumcache::daemon {

// The directives of one targeted field value (all its lines joined by ", "),
// or nullopt when it is empty or invalid as above.
std::optional<ResponseDirectives> parse_targeted_directives(std::string_view field_value);

struct ChosenDirectives {
  ResponseDirectives directives;
  // The first listed field that was present with a non-empty value and
  // ignored as invalid before the choice; empty when none was. The proxy
  // counts and logs it: an origin's typo silently falls back otherwise.
  std::string_view invalid_field;
};

// What the cache obeys for this response: the first listed targeted field
// that parses, marked from_targeted_field, else Cache-Control
// (response_directives, cache_control.h). An empty list turns the feature off.
ChosenDirectives choose_response_directives(const HeaderList& response,
                                            std::span<const std::string> targeted_fields);
ResponseDirectives effective_response_directives(const HeaderList& response,
                                                 std::span<const std::string> targeted_fields);

}  // namespace sumcache::daemon
