#pragma once
// Reads one JSON object of the config field by field. Every field a section asks for, present
// or not, becomes known; finish() then rejects whatever the object holds besides, so a typo is
// an error instead of a silently ignored setting. Keys are string literals: the reader keeps
// views of them. Internal to the config library.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "config/json_value.h"

namespace sumcache::config::detail {

class ObjectReader {
 public:
  // Throws unless value is an object.
  ObjectReader(const Json& value, std::string path);

  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const { return child_path(path_, key); }

  // The field, or nullptr when absent. Each read below leaves out untouched when absent.
  const Json* find(std::string_view key);
  void read(std::string_view key, bool& out);
  void read(std::string_view key, std::string& out);
  void read(std::string_view key, std::filesystem::path& out);
  void read(std::string_view key, double& out, double min, double max);
  void read(std::string_view key, std::chrono::milliseconds& out, std::int64_t min,
            std::int64_t max);
  void read_size(std::string_view key, std::uint64_t& out, std::uint64_t min, std::uint64_t max);

  template <class Int>
  void read_integer(std::string_view key, Int& out, std::int64_t min, std::int64_t max) {
    if (const Json* v = find(key)) out = static_cast<Int>(as_integer(*v, path_of(key), min, max));
  }
  template <class E>
  void read_enum(std::string_view key, E& out) {
    if (const Json* v = find(key)) out = as_enum<E>(*v, path_of(key));
  }
  // Reads the object at key, if present, with fn(ObjectReader&), then finishes it.
  template <class F>
  void section(std::string_view key, F&& fn) {
    if (const Json* v = find(key)) read_object(*v, path_of(key), fn);
  }

  // Throws for the first field no read asked for, suggesting the known name it resembles.
  void finish() const;

  template <class F>
  static void read_object(const Json& value, std::string path, F&& fn) {
    ObjectReader reader(value, std::move(path));
    fn(reader);
    reader.finish();
  }

 private:
  const Json& object_;
  std::string path_;
  std::vector<std::string_view> known_;
};

}  // namespace sumcache::config::detail
