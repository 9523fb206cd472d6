#pragma once
// "Bit i is now v": one entry of a summary delta (Summary Cache's DIRUPDATE).
// Stating the new value, not a flip, makes a replayed or lost delta harmless
// once the next one lands.

#include <cstdint>

namespace sumcache::filters {

struct BitChange {
  std::uint64_t position = 0;
  bool value = false;
  friend bool operator==(const BitChange&, const BitChange&) = default;
};

}  // namespace sumcache::filters
