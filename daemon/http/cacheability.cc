#include "daemon/http/cacheability.h"

#include <algorithm>
#include <array>

#include "daemon/http/field_value.h"
#include "daemon/http/hop_by_hop.h"
#include "daemon/http/http_date.h"
#include "daemon/http/vary.h"

namespace sumcache::daemon {
namespace {

// Final status codes RFC 9110 §15 defines, less 206 and 304: partial content
// is stored only where the caller asks (StoreInput::partial_allowed), and a
// 304 never (it updates a stored response instead, §4.3.4).
// must-understand (§5.2.2.3) lets only these through.
bool is_understood(int status) {
  constexpr std::array<int, 40> kUnderstood = {200, 201, 202, 203, 204, 205, 300, 301, 302, 303,
                                               305, 307, 308, 400, 401, 402, 403, 404, 405, 406,
                                               407, 408, 409, 410, 411, 412, 413, 414, 415, 416,
                                               417, 421, 422, 426, 500, 501, 502, 503, 504, 505};
  return std::ranges::find(kUnderstood, status) != kUnderstood.end();
}

// §3.5: directives that let a shared cache reuse a response to a request that
// carried Authorization.
bool allows_authorized(const ResponseDirectives& d) {
  return d.is_public || d.s_maxage || d.must_revalidate;
}

// §3: the last condition, "the response contains at least one of" these.
bool has_freshness_info(int status, const HeaderList& response, const ResponseDirectives& d) {
  // RFC 9213 §2.2: a targeted field's directives replace Expires too.
  const bool expires = !d.from_targeted_field && has_field(response, "Expires");
  return d.is_public || d.max_age || d.s_maxage || expires || is_heuristically_cacheable(status);
}

bool too_large(const HeaderList& response, std::uint64_t max_object_bytes) {
  const auto length = first_value(response, "Content-Length");
  if (!length) return false;
  const auto bytes = parse_uint64(trim_ows(*length));
  return !bytes || *bytes > max_object_bytes;
}

// Any Transfer-Encoding but exactly chunked, which the relay decodes.
bool transfer_coded(const HeaderList& response) {
  for (const HeaderField& field : response) {
    if (iequals(field.name, "Transfer-Encoding") && !iequals(trim_ows(field.value), "chunked")) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string_view to_string(StoreReason reason) {
  switch (reason) {
    case StoreReason::storable:
      return "storable";
    case StoreReason::method_not_get:
      return "method_not_get";
    case StoreReason::status_not_final:
      return "status_not_final";
    case StoreReason::status_not_understood:
      return "status_not_understood";
    case StoreReason::no_store_request:
      return "no_store_request";
    case StoreReason::no_store_response:
      return "no_store_response";
    case StoreReason::private_response:
      return "private_response";
    case StoreReason::authorization:
      return "authorization";
    case StoreReason::vary_star:
      return "vary_star";
    case StoreReason::no_freshness_info:
      return "no_freshness_info";
    case StoreReason::too_large:
      return "too_large";
    case StoreReason::transfer_coded:
      return "transfer_coded";
  }
  return "unknown";
}

bool is_heuristically_cacheable(int status) {
  constexpr std::array<int, 12> kHeuristic = {200, 203, 204, 206, 300, 301,
                                              308, 404, 405, 410, 414, 501};
  return std::ranges::find(kHeuristic, status) != kHeuristic.end();
}

StoreReason storability(const StoreInput& in) {
  const ResponseDirectives& rd = in.response_directives;
  if (in.method != "GET") return StoreReason::method_not_get;
  if (in.status < 200) return StoreReason::status_not_final;
  const bool understood = is_understood(in.status) || (in.status == 206 && in.partial_allowed);
  if (!understood && (in.status == 206 || in.status == 304 || rd.must_understand)) {
    return StoreReason::status_not_understood;
  }
  if (in.request_directives.no_store) return StoreReason::no_store_request;
  // §5.2.2.3: a cache that understands must-understand and the status code
  // ignores no-store.
  if (rd.no_store && !(rd.must_understand && understood)) return StoreReason::no_store_response;
  if (rd.is_private) return StoreReason::private_response;
  if (has_field(in.request, "Authorization") && !allows_authorized(rd)) {
    return StoreReason::authorization;
  }
  if (auto vary = joined_value(in.response, "Vary"); vary && vary_is_star(*vary)) {
    return StoreReason::vary_star;
  }
  if (!has_freshness_info(in.status, in.response, rd)) return StoreReason::no_freshness_info;
  if (too_large(in.response, in.max_object_bytes)) return StoreReason::too_large;
  if (transfer_coded(in.response)) return StoreReason::transfer_coded;
  return StoreReason::storable;
}

HeaderList headers_to_store(HeaderList response, const ResponseDirectives& directives,
                            std::chrono::sys_seconds response_time) {
  remove_hop_by_hop(response);
  for (std::string_view name :
       {"Proxy-Authenticate", "Proxy-Authentication-Info", "Proxy-Authorization"}) {
    remove_field(response, name);
  }
  for (const std::string& name : directives.no_cache_fields) remove_field(response, name);
  for (const std::string& name : directives.private_fields) remove_field(response, name);
  if (!has_field(response, "Date")) {
    response.push_back({"Date", format_http_date(response_time)});
  }
  return response;
}

}  // namespace sumcache::daemon
