#include "filters/fingerprint.h"

#include <cmath>

#include "filters/filter_error.h"

namespace sumcache::filters {

Result<std::uint64_t> fingerprint_universe(std::uint64_t n, double p) {
  if (n == 0) return make_error_code(FilterErrc::invalid_entries);
  if (!(p > 0.0 && p < 1.0)) return make_error_code(FilterErrc::invalid_fpr);
  const double universe = std::ceil(static_cast<double>(n) / p);
  if (!(universe <= static_cast<double>(kMaxUniverse))) {
    return make_error_code(FilterErrc::invalid_bits);
  }
  return static_cast<std::uint64_t>(universe);
}

// -expm1(n log1p(-1/U)) keeps its precision where 1/U is far below the
// double's epsilon relative to 1 (U up to 2^40).
double fingerprint_fpr(std::uint64_t n, std::uint64_t universe) {
  if (n == 0) return 0.0;
  if (universe <= 1) return 1.0;
  return -std::expm1(static_cast<double>(n) * std::log1p(-1.0 / static_cast<double>(universe)));
}

}  // namespace sumcache::filters
