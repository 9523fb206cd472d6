#include "config/json_value.h"

#include <limits>

#include "config/size_string.h"

namespace sumcache::config::detail {
namespace {

// Names the JSON type as the schema does: integers apart from other numbers.
std::string_view type_name(const Json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number()) return "number";
  return value.type_name();
}

std::string number_text(double value) {
  Json j = value;
  return j.dump();
}

}  // namespace

std::string child_path(const std::string& parent, std::string_view key) {
  return parent + "." + std::string(key);
}

std::string element_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

void require(const std::string& path, const std::string& reason) {
  if (!reason.empty()) throw ConfigError(path, reason);
}

void type_error(const std::string& path, std::string_view expected, const Json& got) {
  throw ConfigError(path,
                    "expected " + std::string(expected) + ", got " + std::string(type_name(got)));
}

void choice_error(const std::string& path, std::string_view got, const std::string& choices) {
  throw ConfigError(path, "must be one of " + choices + " (got \"" + std::string(got) + "\")");
}

bool as_bool(const Json& value, const std::string& path) {
  if (!value.is_boolean()) type_error(path, "boolean", value);
  return value.get<bool>();
}

const std::string& as_string(const Json& value, const std::string& path) {
  if (!value.is_string()) type_error(path, "string", value);
  return value.get_ref<const std::string&>();
}

std::int64_t as_integer(const Json& value, const std::string& path, std::int64_t min,
                        std::int64_t max) {
  if (!value.is_number_integer()) type_error(path, "integer", value);
  // A value above INT64_MAX arrives unsigned; every range here lies below it.
  bool too_big = value.is_number_unsigned() &&
                 value.get<std::uint64_t>() >
                     static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (too_big || value.get<std::int64_t>() < min || value.get<std::int64_t>() > max) {
    throw ConfigError(path, "must be between " + std::to_string(min) + " and " +
                                std::to_string(max) + " (got " + value.dump() + ")");
  }
  return value.get<std::int64_t>();
}

double as_number(const Json& value, const std::string& path, double min, double max) {
  if (!value.is_number()) type_error(path, "number", value);
  double d = value.get<double>();
  if (!(d >= min && d <= max)) {
    throw ConfigError(path, "must be between " + number_text(min) + " and " + number_text(max) +
                                " (got " + value.dump() + ")");
  }
  return d;
}

std::uint64_t as_size(const Json& value, const std::string& path, std::uint64_t min,
                      std::uint64_t max) {
  std::uint64_t bytes = 0;
  if (value.is_string()) {
    std::string why;
    auto parsed = parse_size(value.get_ref<const std::string&>(), &why);
    if (!parsed) throw ConfigError(path, why);
    bytes = *parsed;
  } else if (value.is_number_unsigned()) {
    bytes = value.get<std::uint64_t>();
  } else if (value.is_number_integer()) {
    throw ConfigError(path, "must not be negative (got " + value.dump() + ")");
  } else {
    type_error(path, "integer or size string", value);
  }
  if (bytes < min || bytes > max) {
    throw ConfigError(path, "must be between " + format_size(min) + " and " + format_size(max) +
                                " (got " + format_size(bytes) + ")");
  }
  return bytes;
}

}  // namespace sumcache::config::detail
