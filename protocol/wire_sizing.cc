#include "protocol/wire_sizing.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "filters/filter_error.h"

namespace sumcache::protocol {
namespace {

double binary_entropy(double q) {
  if (q <= 0 || q >= 1) return 0;
  return -(q * std::log2(q) + (1 - q) * std::log2(1 - q));
}

// Expected bits of a Rice code for a gap G with P(G = g) = (1 - p)^g p, at the
// best parameter r: r + 1 + E[G >> r], and E[G >> r] = a / (1 - a) with
// a = (1 - p)^(2^r).
double rice_bits_per_code(double p) {
  double best = HUGE_VAL;
  for (int r = 0; r <= 63; ++r) {
    const double a = std::exp(std::ldexp(1.0, r) * std::log1p(-p));
    if (a >= 1) continue;
    best = std::min(best, r + 1 + a / (1 - a));
  }
  return best;
}

}  // namespace

WireEstimate estimate_wire(std::uint64_t n, filters::BloomParams params) {
  const double m = static_cast<double>(params.m);
  const double keys = static_cast<double>(std::max<std::uint64_t>(n, 1));
  const double probes = static_cast<double>(params.k) * static_cast<double>(n);
  const double fill = -std::expm1(probes * std::log1p(-1.0 / m));
  const double rarer = std::min(fill, 1 - fill);
  const double coded = rarer > 0 ? m * rarer * rice_bits_per_code(rarer) : 0;
  WireEstimate out;
  out.params = params;
  out.fpr = std::pow(fill, params.k);
  out.wire_bits_per_entry = std::min(m, coded) / keys;
  out.entropy_bits_per_entry = m * binary_entropy(fill) / keys;
  return out;
}

Result<WireEstimate> wire_optimal(std::uint64_t n, double target_fpr) {
  if (n == 0) return make_error_code(filters::FilterErrc::invalid_entries);
  if (!(target_fpr > 0 && target_fpr < 1)) return make_error_code(filters::FilterErrc::invalid_fpr);
  const double probes_per_k = static_cast<double>(n);
  std::optional<WireEstimate> best;
  for (std::uint32_t k = 1; k <= filters::kMaxHashes; ++k) {
    // fill q = target^(1/k) and (1 - 1/m)^(kn) = 1 - q give m.
    const double q = std::pow(target_fpr, 1.0 / k);
    const double m_exact = -1.0 / std::expm1(std::log1p(-q) / (k * probes_per_k));
    if (!(m_exact < static_cast<double>(filters::kMaxBits))) continue;
    auto m = static_cast<std::uint64_t>(std::max(1.0, std::ceil(m_exact)));
    WireEstimate e = estimate_wire(n, {m, k});
    if (e.fpr > target_fpr) e = estimate_wire(n, {m + 1, k});  // rounding in the closed form
    if (e.fpr > target_fpr) continue;
    if (!best || e.wire_bits_per_entry < best->wire_bits_per_entry) best = e;
  }
  if (!best) return make_error_code(filters::FilterErrc::size_overflow);
  return *best;
}

}  // namespace sumcache::protocol
