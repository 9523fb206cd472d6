#pragma once
// Fingerprint summaries (docs/filters_fingerprint.md). A key's fingerprint is
// its hash's h1 reduced to [0, U) by Lemire's multiply-shift: the same value
// as a k = 1 Bloom filter's only probe in m = U bits, so a fingerprint set
// is that filter's set positions, kept with multiplicity. n fingerprints in a
// universe U = ceil(n / p) answer "held?" with false positive rate
// 1 - (1 - 1/U)^n <= p, and their sorted gaps, Rice coded, cost about
// log2(1/p) + 1.5 bits each (a Golomb-coded set).

#include <cstdint>

#include "filters/hashing.h"
#include "filters/result.h"

namespace sumcache::filters {

// 2^40 fingerprints: room for 10^9 entries at p = 0.1%.
inline constexpr std::uint64_t kMaxUniverse = std::uint64_t{1} << 40;

// What a receiver that holds at most `max_entries` fingerprints of one peer
// (cluster.peer_max_fingerprints) takes, both bounds inclusive: a set of at
// most max_entries entries (a set of exactly the cap is held), in a universe
// of at most max_entries x 2^16 (a larger one's bucket index, 4 bytes per 2^16
// of universe, would outweigh the entries themselves). The one declaration
// behind the peer listener's head check (daemon/peer/summary_admission.cc) and
// FingerprintDirectory's, so a set the head admits is a set the directory holds.
struct FingerprintCap {
  std::uint64_t max_entries = std::uint64_t{1} << 26;
  constexpr std::uint64_t max_universe() const { return max_entries << 16; }
  constexpr bool holds_entries(std::uint64_t entries) const { return entries <= max_entries; }
  constexpr bool holds_universe(std::uint64_t universe) const { return universe <= max_universe(); }
};

// U = ceil(n / p). Errors: invalid_entries (n = 0), invalid_fpr (p outside
// (0, 1) or NaN), invalid_bits (U above kMaxUniverse).
Result<std::uint64_t> fingerprint_universe(std::uint64_t n, double p);

// The key's fingerprint in [0, universe); universe > 0.
inline std::uint64_t fingerprint(const Hash128& h, std::uint64_t universe) {
  return reduce(h.h1, universe);
}

// 1 - (1 - 1/universe)^n: the chance that an absent key's fingerprint equals
// one of n held ones.
double fingerprint_fpr(std::uint64_t n, std::uint64_t universe);

}  // namespace sumcache::filters
