#include "daemon/peer/rendezvous_owner.h"

#include "filters/hashing.h"

namespace sumcache::daemon {

std::uint64_t rendezvous_seed(std::string_view node_id) { return filters::xxh3_128(node_id, 0).h1; }

std::uint64_t rendezvous_weight(std::string_view key, std::uint64_t seed) {
  return filters::xxh3_128(key, seed).h1;
}

std::size_t rendezvous_owner(std::string_view key, std::span<const std::string_view> nodes) {
  std::size_t best = 0;
  std::uint64_t best_weight = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::uint64_t w = rendezvous_weight(key, rendezvous_seed(nodes[i]));
    if (i == 0 || w > best_weight || (w == best_weight && nodes[i] < nodes[best])) {
      best = i;
      best_weight = w;
    }
  }
  return best;
}

}  // namespace sumcache::daemon
