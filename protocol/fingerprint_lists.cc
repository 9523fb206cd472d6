#include "protocol/fingerprint_lists.h"

#include <limits>

namespace sumcache::protocol {

bool sorted_below(std::span<const std::uint64_t> values, std::uint64_t bound, bool distinct) {
  std::uint64_t lowest = 0;  // the lowest value the next may be
  for (const std::uint64_t v : values) {
    if (v < lowest || v >= bound) return false;
    lowest = distinct ? v + 1 : v;
  }
  return true;
}

std::optional<std::uint64_t> fingerprint_base_size(std::uint64_t entries, std::uint64_t removed,
                                                   std::uint64_t added) {
  if (entries > std::numeric_limits<std::uint64_t>::max() - removed) return std::nullopt;
  const std::uint64_t before_additions = entries + removed;
  if (before_additions < added) return std::nullopt;
  return before_additions - added;
}

bool valid_fingerprint_delta(const filters::FingerprintDelta& delta, std::uint64_t entries,
                             std::uint64_t universe) {
  const auto base = fingerprint_base_size(entries, delta.removed_ranks.size(), delta.added.size());
  return base && sorted_below(delta.removed_ranks, *base, true) &&
         sorted_below(delta.added, universe, false);
}

}  // namespace sumcache::protocol
