#include "daemon/http/range.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "daemon/http/entity_tag.h"
#include "daemon/http/field_value.h"
#include "daemon/http/http_date.h"

namespace sumcache::daemon {
namespace {

using std::chrono::sys_seconds;

RangeDecision partial(std::uint64_t first, std::uint64_t last, std::uint64_t length) {
  return {
      RangeOutcome::partial,
      {first, last},
      "bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" + std::to_string(length)};
}

RangeDecision not_satisfiable(std::uint64_t length) {
  return {RangeOutcome::not_satisfiable, {}, "bytes */" + std::to_string(length)};
}

// suffix-range = "-" suffix-length
RangeDecision apply_suffix(std::string_view suffix, std::uint64_t length) {
  const auto suffix_length = parse_uint64(suffix);
  if (!suffix_length) return {};
  if (*suffix_length == 0) return not_satisfiable(length);
  if (length == 0) return {};
  return partial(length - std::min(*suffix_length, length), length - 1, length);
}

// §13.1.5 with §8.8.2.2: the stored Last-Modified is a strong validator when
// it is at least 60 seconds older than the stored Date.
bool if_range_date_holds(std::string_view value, const HeaderList& stored, sys_seconds now) {
  const auto parse = [now](std::optional<std::string_view> text) {
    return text ? parse_http_date(*text, now) : std::nullopt;
  };
  const auto validator = parse(value);
  const auto last_modified = parse(first_value(stored, "Last-Modified"));
  const auto date = parse(first_value(stored, "Date"));
  return validator && last_modified && date && *validator == *last_modified &&
         *date - *last_modified >= std::chrono::seconds{60};
}

bool if_range_holds(std::string_view value, const HeaderList& stored, sys_seconds now) {
  value = trim_ows(value);
  // An entity-tag shows a DQUOTE within its first three characters.
  if (value.substr(0, 3).find('"') == std::string_view::npos) {
    return if_range_date_holds(value, stored, now);
  }
  const auto tag = parse_entity_tag(value);
  const auto stored_value = first_value(stored, "ETag");
  const auto stored_tag = stored_value ? parse_entity_tag(*stored_value) : std::nullopt;
  return tag && stored_tag && strong_match(*tag, *stored_tag);
}

}  // namespace

RangeDecision apply_range(std::string_view range, std::uint64_t length) {
  range = trim_ows(range);
  const std::size_t eq = range.find('=');
  if (eq == std::string_view::npos || !iequals(trim_ows(range.substr(0, eq)), "bytes")) return {};
  const auto specs = split_list(range.substr(eq + 1));
  if (specs.size() != 1) return {};
  const std::string_view spec = specs.front();
  const std::size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return {};
  if (dash == 0) return apply_suffix(spec.substr(1), length);
  const auto first = parse_uint64(spec.substr(0, dash));
  const std::string_view last_text = spec.substr(dash + 1);
  const auto last =
      last_text.empty() ? std::optional<std::uint64_t>(UINT64_MAX) : parse_uint64(last_text);
  if (!first || !last || *last < *first) return {};  // invalid: ignore the field
  if (*first >= length) return not_satisfiable(length);
  return partial(*first, std::min(*last, length - 1), length);
}

RangeDecision decide_range(std::string_view method, const HeaderList& request,
                           const HeaderList& stored_response, std::uint64_t length,
                           sys_seconds now) {
  const auto range = joined_value(request, "Range");
  if (method != "GET" || !range) return {};
  if (auto if_range = first_value(request, "If-Range");
      if_range && !if_range_holds(*if_range, stored_response, now)) {
    return {};
  }
  return apply_range(*range, length);
}

}  // namespace sumcache::daemon
