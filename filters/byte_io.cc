#include "filters/byte_io.h"

#include <xxhash.h>

namespace sumcache::filters {

std::uint64_t checksum64(std::span<const std::uint8_t> bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

}  // namespace sumcache::filters
