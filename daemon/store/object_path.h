#pragma once
// Where an object lives on disk: root/a/bc/<h1 h2 as 32 hex>[.<variant hash as
// 16 hex>], a being the top 4 bits of h1 and bc the next 8: 16 x 256
// directories, as nginx's levels=1:2 and Squid's default L1/L2. The name is
// derived from the hashes alone, so the index needs no path string. 4096
// directories cost 16 MiB of directory blocks and hold a few hundred files
// each at 10^6 objects; the earlier 256 x 256 layout cost 256 MiB once spread
// and made object writes create a directory most of the time.

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
  bool legacy = false;  // in the earlier "ab/cd/" layout: the scan moves it
};
// Parses "a/bc/<name>" (or the earlier "ab/cd/<name>") relative to the root;
// nullopt when it is not an object file's path (or the directories disagree
// with the name).
std::optional<ObjectName> parse_object_path(std::string_view relative);

}  // namespace sumcache::daemon
