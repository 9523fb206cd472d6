#include "daemon/http/content_range.h"

#include "daemon/http/field_value.h"

namespace sumcache::daemon {

std::optional<ContentRange> parse_content_range(std::string_view value) {
  value = trim_ows(value);
  // range-unit is case-insensitive (§14.1); one SP follows it.
  if (value.size() < 6 || !iequals(value.substr(0, 5), "bytes") || value[5] != ' ') {
    return std::nullopt;
  }
  value.remove_prefix(6);
  const std::size_t dash = value.find('-');
  const std::size_t slash = value.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || slash < dash) {
    return std::nullopt;
  }
  const auto first = parse_uint64(value.substr(0, dash));
  const auto last = parse_uint64(value.substr(dash + 1, slash - dash - 1));
  const auto complete = parse_uint64(value.substr(slash + 1));
  // §14.4: a range-resp with last < first, or last at or past the complete
  // length, is invalid.
  if (!first || !last || !complete || *last < *first || *last >= *complete) return std::nullopt;
  return ContentRange{*first, *last, *complete};
}

std::string_view to_string(PartialCheck check) {
  switch (check) {
    case PartialCheck::storable:
      return "storable";
    case PartialCheck::multipart:
      return "multipart";
    case PartialCheck::unknown_length:
      return "unknown_length";
    case PartialCheck::too_large:
      return "too_large";
    case PartialCheck::malformed:
      return "malformed Content-Range";
    case PartialCheck::length_mismatch:
      return "Content-Length differs from Content-Range";
  }
  return "unknown";
}

bool is_protocol_error(PartialCheck check) {
  return check == PartialCheck::malformed || check == PartialCheck::length_mismatch;
}

PartialFacts check_partial_response(const HeaderList& response, std::uint64_t max_object_bytes) {
  const std::size_t ranges = count_fields(response, "Content-Range");
  if (ranges == 0) {
    // §15.3.7.2: several ranges come as multipart/byteranges, without one.
    const auto type = first_value(response, "Content-Type");
    if (type && iequals(trim_ows(type->substr(0, type->find(';'))), "multipart/byteranges")) {
      return {PartialCheck::multipart, {}};
    }
    return {PartialCheck::malformed, {}};
  }
  if (ranges > 1) return {PartialCheck::malformed, {}};
  const std::string_view value = *first_value(response, "Content-Range");
  const auto range = parse_content_range(value);
  if (!range) {
    // "bytes 0-4/*" is valid (§14.4) but gives nothing to combine into.
    const std::size_t slash = value.find('/');
    const bool star = slash != std::string_view::npos && trim_ows(value.substr(slash + 1)) == "*";
    if (star) {
      auto known = std::string(value.substr(0, slash)) + "/" + std::to_string(UINT64_MAX);
      if (parse_content_range(known)) return {PartialCheck::unknown_length, {}};
    }
    return {PartialCheck::malformed, {}};
  }
  if (range->complete > max_object_bytes) return {PartialCheck::too_large, {}};
  if (count_fields(response, "Content-Length") > 1) return {PartialCheck::length_mismatch, {}};
  if (const auto length = first_value(response, "Content-Length")) {
    const auto bytes = parse_uint64(trim_ows(*length));
    if (!bytes || *bytes != range->length()) return {PartialCheck::length_mismatch, {}};
  }
  return {PartialCheck::storable, *range};
}

}  // namespace sumcache::daemon
