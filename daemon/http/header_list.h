#pragma once
// The header section as the rules see it: an ordered list of name/value pairs,
// one per field line, exactly as received. The proxy fills it from a Beast
// message in one pass (name_string(), value()); the rules never hold a
// reference into a Beast buffer, so they compile and test without Boost.
//
// Names compare case-insensitively (RFC 9110 §5.1). Several lines with one
// name are one list-based field whose values join with ", " (RFC 9110 §5.3).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sumcache::daemon {

struct HeaderField {
  std::string name;
  std::string value;
  friend bool operator==(const HeaderField&, const HeaderField&) = default;
};
using HeaderList = std::vector<HeaderField>;

bool has_field(const HeaderList& fields, std::string_view name);
std::size_t count_fields(const HeaderList& fields, std::string_view name);
// The value of the first line with this name: for singleton fields (Date, ETag).
std::optional<std::string_view> first_value(const HeaderList& fields, std::string_view name);
// All lines with this name joined by ", ": for list-based fields (Cache-Control, Vary).
std::optional<std::string> joined_value(const HeaderList& fields, std::string_view name);

// Removes every line with this name.
void remove_field(HeaderList& fields, std::string_view name);

}  // namespace sumcache::daemon
