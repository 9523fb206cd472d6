#include "config/object_reader.h"

#include <algorithm>
#include <utility>

namespace sumcache::config::detail {
namespace {

// Edit distance counting a swap of neighbours as one edit (optimal string alignment), for
// "did you mean" on a misspelt field name: "mdoe" is one edit from "mode".
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

ObjectReader::ObjectReader(const Json& value, std::string path)
    : object_(value), path_(std::move(path)) {
  if (!value.is_object()) type_error(path_, "object", value);
}

const Json* ObjectReader::find(std::string_view key) {
  known_.push_back(key);
  auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

void ObjectReader::read(std::string_view key, bool& out) {
  if (const Json* v = find(key)) out = as_bool(*v, path_of(key));
}

void ObjectReader::read(std::string_view key, std::string& out) {
  if (const Json* v = find(key)) out = as_string(*v, path_of(key));
}

void ObjectReader::read(std::string_view key, std::filesystem::path& out) {
  if (const Json* v = find(key)) out = as_string(*v, path_of(key));
}

void ObjectReader::read(std::string_view key, double& out, double min, double max) {
  if (const Json* v = find(key)) out = as_number(*v, path_of(key), min, max);
}

void ObjectReader::read(std::string_view key, std::chrono::milliseconds& out, std::int64_t min,
                        std::int64_t max) {
  if (const Json* v = find(key)) {
    out = std::chrono::milliseconds(as_integer(*v, path_of(key), min, max));
  }
}

void ObjectReader::read_size(std::string_view key, std::uint64_t& out, std::uint64_t min,
                             std::uint64_t max) {
  if (const Json* v = find(key)) out = as_size(*v, path_of(key), min, max);
}

void ObjectReader::finish() const {
  for (const auto& item : object_.items()) {
    const std::string& key = item.key();
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    // Suggest only close names: two edits, and fewer than half the name.
    std::string_view best;
    std::size_t best_distance = std::min<std::size_t>(3, (key.size() + 1) / 2);
    for (std::string_view known : known_) {
      std::size_t distance = edit_distance(key, known);
      if (distance < best_distance) {
        best = known;
        best_distance = distance;
      }
    }
    std::string reason = "unknown field";
    if (!best.empty()) reason += " (did you mean \"" + std::string(best) + "\"?)";
    throw ConfigError(path_of(key), reason);
  }
}

}  // namespace sumcache::config::detail
