#include "daemon/cache/cache_fill.h"

#include "daemon/cache/stored_head.h"
#include "daemon/http/cacheability.h"
#include "daemon/http/hop_by_hop.h"
#include "daemon/http/targeted_cache_control.h"
#include "daemon/http/post_cacheability.h"
#include "daemon/http/validation.h"
#include "daemon/http/vary.h"

namespace sumcache::daemon {
namespace {

// Fields a hit writes itself (headers_to_store has removed the hop-by-hop ones).
void remove_per_response_fields(HeaderList& fields) {
  for (const char* name : {"Age", "X-Cache", "Content-Length"}) remove_field(fields, name);
}

// What only storing reads is not kept in the meta (cached_meta.h): the field
// lists went into headers_to_store, the targeted mark into the freshness.
void forget_store_time_directives(ResponseDirectives& directives) {
  directives.no_cache_fields.clear();
  directives.private_fields.clear();
  directives.from_targeted_field = false;
}

}  // namespace

std::optional<std::string> fill_variant(const HeaderList& request_fields,
                                        const RequestDirectives& request_directives,
                                        const ResponseFacts& response,
                                        std::uint64_t max_object_bytes, bool partial_allowed) {
  const StoreInput input{"GET",           request_fields,      request_directives, response.status,
                         response.fields, response.directives, max_object_bytes,   partial_allowed};
  if (storability(input) != StoreReason::storable) return std::nullopt;
  return secondary_key(joined_value(response.fields, "Vary").value_or(""), request_fields);
}

std::optional<std::string> post_fill_variant(const HeaderList& request_fields,
                                             const RequestDirectives& request_directives,
                                             const ResponseFacts& response,
                                             std::uint64_t max_object_bytes,
                                             const EffectiveUri& target) {
  const StoreInput input{"POST",          request_fields,      request_directives, response.status,
                         response.fields, response.directives, max_object_bytes};
  if (post_storability(input, target) != PostStoreReason::storable) return std::nullopt;
  return secondary_key(joined_value(response.fields, "Vary").value_or(""), request_fields);
}

ExchangeTimes exchange_times(std::chrono::system_clock::time_point request_time,
                             std::chrono::system_clock::time_point response_time) {
  return {std::chrono::floor<std::chrono::seconds>(request_time),
          std::chrono::floor<std::chrono::seconds>(response_time)};
}

CachedMeta meta_of(const ResponseFacts& response, const HeuristicPolicy& policy) {
  CachedMeta meta;
  meta.status = response.status;
  meta.freshness = stored_freshness(response.status, response.fields, response.directives,
                                    response.times, policy);
  meta.directives = response.directives;
  forget_store_time_directives(meta.directives);
  meta.vary = joined_value(response.fields, "Vary").value_or("");
  return meta;
}

std::pair<std::string, std::string> stored_head_and_meta(const ResponseFacts& response,
                                                         std::uint64_t body_size,
                                                         std::string_view via,
                                                         const HeuristicPolicy& policy,
                                                         std::string_view tag_field) {
  const CachedMeta meta = meta_of(response, policy);
  HeaderList fields =
      headers_to_store(response.fields, response.directives, response.times.response_time);
  remove_per_response_fields(fields);
  append_via(fields, via);
  fields.push_back({"Content-Length", std::to_string(body_size)});
  move_field_last(fields, tag_field);
  return {build_head(status_line(response.status, response.reason), fields), encode_meta(meta)};
}

std::optional<std::pair<std::string, std::string>> refreshed_head_and_meta(
    std::string_view stored_head, const CachedMeta& meta, const HeaderList& not_modified,
    ExchangeTimes times, const HeuristicPolicy& policy,
    std::span<const std::string> targeted_fields, std::string_view tag_field) {
  const StoredHead stored = parse_stored_head(stored_head);
  auto merged =
      freshen_stored_headers(stored.fields, not_modified, times.response_time, targeted_fields);
  if (!merged) return std::nullopt;
  // §4.1: the request matched the stored Vary; a 304 that changes it names
  // fields nobody compared, so the stored response is not reused as it is.
  if (joined_value(*merged, "Vary").value_or("") != meta.vary) return std::nullopt;
  CachedMeta fresh = meta;
  fresh.directives = effective_response_directives(*merged, targeted_fields);
  fresh.freshness = stored_freshness(meta.status, *merged, fresh.directives, times, policy);
  forget_store_time_directives(fresh.directives);
  remove_field(*merged, "Age");
  remove_field(*merged, "X-Cache");
  move_field_last(*merged, tag_field);
  return std::pair{build_head(stored.status_line, *merged), encode_meta(fresh)};
}

}  // namespace sumcache::daemon
