#include "daemon/http/post_cacheability.h"

#include "daemon/http/field_value.h"
#include "daemon/http/uri_reference.h"

namespace sumcache::daemon {
namespace {

bool content_location_is_target(const HeaderList& response, const EffectiveUri& target) {
  // One line only: more than one names no single representation.
  if (count_fields(response, "Content-Location") != 1) return false;
  // An empty reference would resolve to the target, but names nothing.
  const std::string_view value = trim_ows(*first_value(response, "Content-Location"));
  if (value.empty()) return false;
  const auto uri = resolve_reference(target, value);
  return uri && cache_key(*uri) == cache_key(target);
}

// §9.3.3 "explicit freshness information": an explicit expiration time
// (RFC 9111 §4.2.1), not a heuristic one and not "public" alone.
bool has_explicit_freshness(const StoreInput& in) {
  const ResponseDirectives& d = in.response_directives;
  return d.s_maxage || d.max_age || has_field(in.response, "Expires");
}

}  // namespace

PostStoreReason post_storability(const StoreInput& input, const EffectiveUri& target) {
  if (input.method != "POST") return PostStoreReason::not_post;
  if (!content_location_is_target(input.response, target)) {
    return PostStoreReason::content_location_elsewhere;
  }
  if (!has_explicit_freshness(input)) return PostStoreReason::no_explicit_freshness;
  StoreInput as_get = input;
  as_get.method = "GET";
  return storability(as_get) == StoreReason::storable ? PostStoreReason::storable
                                                      : PostStoreReason::not_storable;
}

}  // namespace sumcache::daemon
