#include "config/config.h"

#include <algorithm>

namespace sumcache::config {

std::uint64_t filter_expected_entries(const Config& config) {
  if (config.filter.expected_entries != 0) return config.filter.expected_entries;
  std::uint64_t bytes = config.cache.memory.max_bytes;
  if (config.cache.disk.enabled) bytes += config.cache.disk.max_bytes;
  return std::max<std::uint64_t>(1, bytes / config.filter.avg_object_bytes);
}

}  // namespace sumcache::config
