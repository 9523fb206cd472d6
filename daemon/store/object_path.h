#pragma once
// Where an object lives on disk: root/ab/cd/<h1 h2 as 32 hex>[.<variant hash as
// 16 hex>], ab and cd being the top two bytes of h1. The name is derived from
// the hashes alone, so the index needs no path string; two directory levels
// keep directories near a few thousand files at 10^8 objects.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "filters/hashing.h"

namespace sumcache::daemon {

std::string object_file_path(std::string_view root, const filters::Hash128& hash,
                             std::uint64_t variant_hash);
// Held with flock() by the store that has the directory open.
inline constexpr std::string_view kLockFileName = "lock";
// Interrupted writes leave this; open() removes them.
inline constexpr std::string_view kTempSuffix = ".tmp";
inline std::string temp_path_for(const std::string& path) {
  return path + std::string(kTempSuffix);
}

struct ObjectName {
  filters::Hash128 hash;
  std::uint64_t variant_hash = 0;
};
// Parses "ab/cd/<name>" relative to the root; nullopt when it is not an object
// file's path (or the directories disagree with the name).
std::optional<ObjectName> parse_object_path(std::string_view relative);

}  // namespace sumcache::daemon
