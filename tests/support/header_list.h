#pragma once
// HeaderList: header fields in the order they crossed the wire, duplicates kept,
// so a test sees exactly what a client or the proxy sent.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sumcache::testing {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// The value of the first field named `name`; names compare case-insensitively (RFC 9110 §5.1).
std::optional<std::string> find_header(const HeaderList& headers, std::string_view name);

}  // namespace sumcache::testing
