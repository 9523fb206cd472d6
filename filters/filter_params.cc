#include "filters/filter_params.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

constexpr double kLn2 = 0.69314718055994530942;

std::uint32_t optimal_k(double bits_per_key) {
  const double k = std::round(bits_per_key * kLn2);
  if (k < 1.0) return 1;
  if (k > kMaxHashes) return kMaxHashes;
  return static_cast<std::uint32_t>(k);
}

}  // namespace

std::error_code validate(const BloomParams& params) {
  if (params.m == 0 || params.m > kMaxBits) return FilterErrc::invalid_bits;
  if (params.k == 0 || params.k > kMaxHashes) return FilterErrc::invalid_hashes;
  return {};
}

Result<BloomParams> optimal_params(std::uint64_t n, double p) {
  if (n == 0) return make_error_code(FilterErrc::invalid_entries);
  if (!(p > 0.0 && p < 1.0)) return make_error_code(FilterErrc::invalid_fpr);
  const double bits = std::ceil(-static_cast<double>(n) * std::log(p) / (kLn2 * kLn2));
  if (!(bits <= static_cast<double>(kMaxBits))) return make_error_code(FilterErrc::size_overflow);
  BloomParams params;
  params.m = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(bits));
  params.k = optimal_k(static_cast<double>(params.m) / static_cast<double>(n));
  return params;
}

Result<BloomParams> params_for_load(std::uint64_t n, double bits_per_key, std::uint32_t k) {
  if (n == 0) return make_error_code(FilterErrc::invalid_entries);
  if (!(bits_per_key > 0.0) || !std::isfinite(bits_per_key)) {
    return make_error_code(FilterErrc::invalid_bits);
  }
  if (k > kMaxHashes) return make_error_code(FilterErrc::invalid_hashes);
  const double bits = std::ceil(static_cast<double>(n) * bits_per_key);
  if (!(bits <= static_cast<double>(kMaxBits))) return make_error_code(FilterErrc::size_overflow);
  BloomParams params;
  params.m = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(bits));
  params.k = k != 0 ? k : optimal_k(bits_per_key);
  return params;
}

double expected_fpr(const BloomParams& params, std::uint64_t n) {
  const double k = params.k;
  return std::pow(-std::expm1(-k * static_cast<double>(n) / static_cast<double>(params.m)), k);
}

double fpr_from_fill(const BloomParams& params, std::uint64_t set_bits) {
  return std::pow(static_cast<double>(set_bits) / static_cast<double>(params.m), params.k);
}

double estimate_cardinality(const BloomParams& params, std::uint64_t set_bits) {
  if (set_bits >= params.m) return std::numeric_limits<double>::infinity();
  const double m = static_cast<double>(params.m);
  return -(m / params.k) * std::log1p(-static_cast<double>(set_bits) / m);
}

}  // namespace sumcache::filters
