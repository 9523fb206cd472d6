#include "protocol/rice_code.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "protocol/wire_header.h"

namespace sumcache::protocol {

unsigned rice_parameter_for_mean(double mean_gap) {
  const double scaled = mean_gap * std::numbers::ln2;
  if (!(scaled >= 2.0)) return 0;  // also NaN
  return std::min(kMaxRiceParameter, static_cast<unsigned>(std::floor(std::log2(scaled))));
}

RiceSizer::RiceSizer(double mean_gap) {
  const unsigned centre = rice_parameter_for_mean(mean_gap);
  candidates_ = {centre == 0 ? 0 : centre - 1, centre, std::min(centre + 1, kMaxRiceParameter)};
}

unsigned RiceSizer::best_parameter() const {
  std::size_t best = 0;
  for (std::size_t i = 1; i < candidates_.size(); ++i) {
    if (bits(i) < bits(best)) best = i;
  }
  return candidates_[best];
}

std::uint64_t RiceSizer::best_bits() const {
  std::uint64_t best = bits(0);
  for (std::size_t i = 1; i < candidates_.size(); ++i) best = std::min(best, bits(i));
  return best;
}

}  // namespace sumcache::protocol
