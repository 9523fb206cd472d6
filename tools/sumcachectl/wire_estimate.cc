#include "tools/sumcachectl/wire_estimate.h"

#include <cmath>

namespace sumcache::tools {
namespace {

// Expected bits per Rice-coded gap with parameter r, when each bit is set with
// probability `fill` independently (gaps geometric): r remainder bits, plus a unary
// quotient whose mean is a / (1 - a), a = (1 - fill)^(2^r), plus its stop bit.
double rice_bits_per_gap(double fill, std::uint32_t r) {
  const double a = std::exp(std::ldexp(1.0, static_cast<int>(r)) * std::log1p(-fill));
  return r + 1.0 + a / (1.0 - a);
}

}  // namespace

WireEstimate estimate_summary_wire(const filters::BloomParams& params, std::uint64_t n) {
  const double m = static_cast<double>(params.m);
  WireEstimate e;
  e.set_bits = -m * std::expm1(-static_cast<double>(params.k) * static_cast<double>(n) / m);
  const auto raw_bytes = (params.m + 7) / 8;
  const double fill = e.set_bits / m;
  if (!(fill > 0.0 && fill < 1.0)) {
    e.raw = true;
    e.bytes = raw_bytes;
    return e;
  }
  double best = rice_bits_per_gap(fill, 0);
  for (std::uint32_t r = 1; r < 48; ++r) {
    const double bits = rice_bits_per_gap(fill, r);
    if (bits >= best) break;  // the cost is convex in r: the first rise is past the minimum
    best = bits;
    e.rice_bits = r;
  }
  const auto rice_bytes = static_cast<std::uint64_t>(std::ceil(best * e.set_bits / 8.0));
  e.raw = raw_bytes <= rice_bytes;
  e.bytes = e.raw ? raw_bytes : rice_bytes;
  return e;
}

filters::BloomParams wire_optimal(const filters::BloomParams& reference, std::uint64_t n) {
  const std::uint64_t budget = estimate_summary_wire(reference, n).bytes;
  filters::BloomParams best = reference;
  double best_fpr = filters::expected_fpr(reference, n);
  for (std::uint32_t k = 1; k <= reference.k; ++k) {
    // The largest m within the budget: the wire size grows with m for fixed n and k.
    std::uint64_t lo = reference.m;
    std::uint64_t hi =
        std::min<std::uint64_t>(reference.m * kMaxWireOptimalGrowth, filters::kMaxBits);
    if (estimate_summary_wire({lo, k}, n).bytes > budget) continue;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo + 1) / 2;
      if (estimate_summary_wire({mid, k}, n).bytes <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
    const filters::BloomParams candidate{lo, k};
    const double fpr = filters::expected_fpr(candidate, n);
    if (fpr < best_fpr) {
      best = candidate;
      best_fpr = fpr;
    }
  }
  return best;
}

}  // namespace sumcache::tools
