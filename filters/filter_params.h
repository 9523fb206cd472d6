#pragma once
// Parameter math for Bloom filters: sizes from targets, and rates and
// cardinalities from sizes and fill. Formulas as in Broder and Mitzenmacher,
// "Network Applications of Bloom Filters" (2004), and Swamidass and Baldi,
// "Mathematical correction for fingerprint similarity measures" (2007).

#include <cstdint>

#include "filters/result.h"

namespace sumcache::filters {

inline constexpr std::uint32_t kMaxHashes = 32;
// 2^40 bits (128 GiB) is far beyond any cache summary; it keeps size math in range.
inline constexpr std::uint64_t kMaxBits = std::uint64_t{1} << 40;

struct BloomParams {
  std::uint64_t m = 0;  // bits (or counters)
  std::uint32_t k = 0;  // probes per key
  friend bool operator==(const BloomParams&, const BloomParams&) = default;
};

// m = ceil(-n ln p / (ln 2)^2), k = round((m / n) ln 2), k at least 1.
Result<BloomParams> optimal_params(std::uint64_t n, double p);
// m = ceil(n * bits_per_key) with k optimal for that load, or the given k.
Result<BloomParams> params_for_load(std::uint64_t n, double bits_per_key, std::uint32_t k = 0);
// Checks m in [1, kMaxBits] and k in [1, kMaxHashes].
std::error_code validate(const BloomParams& params);

// Expected false positive rate after n distinct insertions: (1 - e^(-kn/m))^k.
double expected_fpr(const BloomParams& params, std::uint64_t n);
// False positive rate given the observed number of set bits: (X/m)^k.
double fpr_from_fill(const BloomParams& params, std::uint64_t set_bits);
// Estimated distinct insertions from set bits: -(m/k) ln(1 - X/m) (Swamidass and Baldi).
// Returns +infinity for a full filter.
double estimate_cardinality(const BloomParams& params, std::uint64_t set_bits);

}  // namespace sumcache::filters
