#include "daemon/cache/cache_fill.h"

#include "daemon/cache/stored_head.h"
#include "daemon/http/cacheability.h"
#include "daemon/http/hop_by_hop.h"
#include "daemon/http/post_cacheability.h"
#include "daemon/http/validation.h"
#include "daemon/http/vary.h"

namespace sumcache::daemon {
namespace {

// Fields a hit writes itself (headers_to_store has removed the hop-by-hop ones).
void remove_per_response_fields(HeaderList& fields) {
  for (const char* name : {"Age", "X-Cache", "Content-Length"}) remove_field(fields, name);
}

}  // namespace

std::optional<std::string> fill_variant(const HeaderList& request_fields,
                                        const RequestDirectives& request_directives,
                                        const ResponseFacts& response,
                                        std::uint64_t max_object_bytes) {
  const StoreInput input{"GET",           request_fields,      request_directives, response.status,
                         response.fields, response.directives, max_object_bytes};
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

std::pair<std::string, std::string> stored_head_and_meta(const ResponseFacts& response,
                                                         std::uint64_t body_size,
                                                         std::string_view via,
                                                         const HeuristicPolicy& policy,
                                                         std::string_view tag_field) {
  CachedMeta meta;
  meta.status = response.status;
  meta.freshness = stored_freshness(response.status, response.fields, response.directives,
                                    response.times, policy);
  meta.directives = response.directives;
  meta.directives.no_cache_fields.clear();
  meta.directives.private_fields.clear();
  meta.vary = joined_value(response.fields, "Vary").value_or("");
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
    ExchangeTimes times, const HeuristicPolicy& policy, std::string_view tag_field) {
  const StoredHead stored = parse_stored_head(stored_head);
  auto merged = freshen_stored_headers(stored.fields, not_modified, times.response_time);
  if (!merged) return std::nullopt;
  CachedMeta fresh = meta;
  fresh.directives = response_directives(*merged);
  fresh.freshness = stored_freshness(meta.status, *merged, fresh.directives, times, policy);
  fresh.directives.no_cache_fields.clear();
  fresh.directives.private_fields.clear();
  remove_field(*merged, "Age");
  remove_field(*merged, "X-Cache");
  move_field_last(*merged, tag_field);
  return std::pair{build_head(stored.status_line, *merged), encode_meta(fresh)};
}

}  // namespace sumcache::daemon
