#pragma once
// JSON text to a JSON value, refusing what nlohmann::json would let through silently: a field
// given twice in one object (the last would win). Internal to the config library.

#include <string_view>

#include "config/json_value.h"

namespace sumcache::config::detail {

// Throws ConfigError at "$" for malformed JSON (with line and column), or at the path of a
// duplicated field.
Json parse_strict_json(std::string_view text);

}  // namespace sumcache::config::detail
