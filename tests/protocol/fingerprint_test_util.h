#pragma once
// Fingerprint sets for the protocol tests: random multisets and a receiver's
// model that applies a delta (filters::fingerprint_difference computes one).

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <vector>

#include "filters/fingerprint_table.h"
#include "protocol/summary_message.h"

namespace sumcache::protocol::testing {

inline SummaryInfo fingerprint_info(std::uint64_t universe, std::uint64_t entries,
                                    std::uint64_t sequence = 1) {
  return {"node-a", 1'700'000'000, sequence, {universe, 1}, {}, entries};
}

// n fingerprints below `universe`, ascending; each a copy of the one before
// with probability `repeat` (deterministic for a seed).
inline std::vector<std::uint64_t> random_fingerprints(std::uint64_t universe, std::size_t n,
                                                      double repeat, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution again(repeat);
  std::vector<std::uint64_t> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(!out.empty() && again(rng) ? out.back() : rng() % universe);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The receiver's model: `base` without the elements at the removed ranks
// (ranks in base), with the added ones merged in. Requires a valid delta.
inline std::vector<std::uint64_t> apply_fingerprint_delta(const std::vector<std::uint64_t>& base,
                                                          const filters::FingerprintDelta& delta) {
  std::vector<std::uint64_t> kept;
  kept.reserve(base.size());
  std::size_t r = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    if (r < delta.removed_ranks.size() && delta.removed_ranks[r] == i) {
      ++r;
      continue;
    }
    kept.push_back(base[i]);
  }
  std::vector<std::uint64_t> out;
  out.reserve(kept.size() + delta.added.size());
  std::merge(kept.begin(), kept.end(), delta.added.begin(), delta.added.end(),
             std::back_inserter(out));
  return out;
}

}  // namespace sumcache::protocol::testing
