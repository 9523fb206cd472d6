#pragma once
// Typed access to one JSON value of the config, with errors that name its path. Internal to
// the config library.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "config/config_error.h"
#include "config/enum_names.h"

namespace sumcache::config::detail {

using Json = nlohmann::json;

// "$.a" + "b" -> "$.a.b"; "$.a" + 3 -> "$.a[3]".
std::string child_path(const std::string& parent, std::string_view key);
std::string element_path(const std::string& parent, std::size_t index);

// The convention of the check_* functions: an empty reason means valid.
void require(const std::string& path, const std::string& reason);
// "expected integer, got string".
[[noreturn]] void type_error(const std::string& path, std::string_view expected, const Json& got);

bool as_bool(const Json& value, const std::string& path);
const std::string& as_string(const Json& value, const std::string& path);
std::int64_t as_integer(const Json& value, const std::string& path, std::int64_t min,
                        std::int64_t max);
double as_number(const Json& value, const std::string& path, double min, double max);
// An integer of bytes or a size string (size_string.h).
std::uint64_t as_size(const Json& value, const std::string& path, std::uint64_t min,
                      std::uint64_t max);

// "must be one of "a", "b" (got "c")" for a name not in the enum's table.
[[noreturn]] void choice_error(const std::string& path, std::string_view got,
                               const std::string& choices);

template <class E>
E as_enum(const Json& value, const std::string& path) {
  const std::string& name = as_string(value, path);
  if (auto e = enum_from_name<E>(name)) return *e;
  std::string choices;
  for (const auto& entry : EnumNames<E>::kNames) {
    choices += (choices.empty() ? "\"" : ", \"") + std::string(entry.second) + "\"";
  }
  choice_error(path, name, choices);
}

// Calls fn(element, element_path) for each element; throws unless value is an array.
template <class F>
void for_each_element(const Json& value, const std::string& path, F&& fn) {
  if (!value.is_array()) type_error(path, "array", value);
  for (std::size_t i = 0; i < value.size(); ++i) fn(value[i], element_path(path, i));
}

}  // namespace sumcache::config::detail
