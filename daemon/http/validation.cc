#include "daemon/http/validation.h"

#include <algorithm>
#include <array>

#include "daemon/http/cache_control.h"
#include "daemon/http/cacheability.h"
#include "daemon/http/entity_tag.h"
#include "daemon/http/field_value.h"
#include "daemon/http/http_date.h"
#include "daemon/http/targeted_cache_control.h"

namespace sumcache::daemon {
namespace {

using std::chrono::sys_seconds;

std::optional<EntityTag> stored_etag(const HeaderList& response) {
  const auto etag = first_value(response, "ETag");
  return etag ? parse_entity_tag(*etag) : std::nullopt;
}

// RFC 9110 §13.1.2: true when no listed tag weakly matches.
bool none_match(std::string_view field, const HeaderList& stored) {
  const auto list = parse_entity_tag_list(field);
  if (!list) return true;  // an invalid field is no evidence of a match
  if (list->any) return false;
  const auto etag = stored_etag(stored);
  return !etag || std::ranges::none_of(
                      list->tags, [&etag](const EntityTag& t) { return weak_match(t, *etag); });
}

// RFC 9111 §4.3.2: Last-Modified, else Date (which headers_to_store ensures),
// read as freshness reads them (parse_http_date_any_case).
std::optional<sys_seconds> modification_date(const HeaderList& stored, sys_seconds now) {
  for (std::string_view name : {"Last-Modified", "Date"}) {
    const auto value = first_value(stored, name);
    if (auto date = value ? parse_http_date_any_case(*value, now) : std::nullopt) return date;
  }
  return std::nullopt;
}

// §4.3.4: whether the 304 selects the stored response for update. A validator
// in the 304 must match the stored one. A 304 with none answers the validator
// we sent (RFC 9110 §15.4.5 does not make it repeat Last-Modified), so it
// selects the one stored response it was asked about (docs/caching.md, "Choices").
bool selects_stored(const HeaderList& stored, const HeaderList& not_modified) {
  if (has_field(not_modified, "ETag")) {
    const auto fresh = stored_etag(not_modified);
    const auto old = stored_etag(stored);
    return fresh && old && (fresh->weak ? weak_match(*fresh, *old) : strong_match(*fresh, *old));
  }
  const auto fresh_lm = first_value(not_modified, "Last-Modified");
  if (!fresh_lm) return true;
  const auto old_lm = first_value(stored, "Last-Modified");
  return old_lm && trim_ows(*fresh_lm) == trim_ows(*old_lm);
}

}  // namespace

HeaderList conditional_headers(const HeaderList& stored_response) {
  HeaderList conditions;
  if (auto etag = first_value(stored_response, "ETag")) {
    conditions.push_back({"If-None-Match", std::string(*etag)});
  }
  if (auto last_modified = first_value(stored_response, "Last-Modified")) {
    conditions.push_back({"If-Modified-Since", std::string(*last_modified)});
  }
  return conditions;
}

ConditionalOutcome evaluate_conditional(std::string_view method, const HeaderList& request,
                                        const HeaderList& stored_response, sys_seconds now) {
  const bool has_inm = has_field(request, "If-None-Match");
  // RFC 9110 §13.1.3: more than one member is not a date; the field is ignored.
  const bool has_ims = count_fields(request, "If-Modified-Since") == 1;
  if (has_field(request, "If-Match") || has_field(request, "If-Unmodified-Since")) {
    return ConditionalOutcome::forward;
  }
  if (!has_inm && !has_ims) return ConditionalOutcome::send_full;
  if (method != "GET" && method != "HEAD") return ConditionalOutcome::forward;
  if (has_inm) {
    return none_match(*joined_value(request, "If-None-Match"), stored_response)
               ? ConditionalOutcome::send_full
               : ConditionalOutcome::send_not_modified;
  }
  const auto since = parse_http_date(*first_value(request, "If-Modified-Since"), now);
  const auto modified = modification_date(stored_response, now);
  if (!since || !modified || *modified > *since) return ConditionalOutcome::send_full;
  return ConditionalOutcome::send_not_modified;
}

bool preconditions_apply(int stored_status) {
  return (stored_status >= 200 && stored_status < 300) || stored_status == 412;
}

HeaderList not_modified_fields(const HeaderList& stored_response) {
  constexpr std::array<std::string_view, 6> kRepeated = {
      "Cache-Control", "Content-Location", "Date", "ETag", "Expires", "Vary"};
  const bool has_etag = has_field(stored_response, "ETag");
  HeaderList fields;
  for (const HeaderField& f : stored_response) {
    const bool repeated = std::ranges::any_of(
        kRepeated, [&f](std::string_view name) { return iequals(f.name, name); });
    if (repeated || (!has_etag && iequals(f.name, "Last-Modified"))) fields.push_back(f);
  }
  return fields;
}

std::optional<HeaderList> freshen_stored_headers(const HeaderList& stored_response,
                                                 const HeaderList& not_modified,
                                                 sys_seconds response_time,
                                                 std::span<const std::string> targeted_fields) {
  if (!selects_stored(stored_response, not_modified)) return std::nullopt;
  HeaderList incoming = headers_to_store(not_modified, ResponseDirectives{}, response_time);
  remove_field(incoming, "Content-Length");
  HeaderList merged = stored_response;
  for (const HeaderField& f : incoming) remove_field(merged, f.name);
  merged.insert(merged.end(), incoming.begin(), incoming.end());
  // The merged directives may name fields that must not be stored (§3.1).
  const ResponseDirectives directives = effective_response_directives(merged, targeted_fields);
  return headers_to_store(std::move(merged), directives, response_time);
}

}  // namespace sumcache::daemon
