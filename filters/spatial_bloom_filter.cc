#include "filters/spatial_bloom_filter.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

// q^e with q = 1 - 1/m: the probability that e random writes all miss a given
// cell. log1p keeps it accurate for large m, where 1 - 1/m rounds.
double miss_all(std::uint64_t m, double writes) {
  if (writes == 0) return 1;
  if (m == 1) return 0;
  return std::exp(writes * std::log1p(-1.0 / static_cast<double>(m)));
}

// Members of the sets from `first` (1-based) up to the top.
double members_from(std::span<const std::uint64_t> members, std::uint32_t first) {
  if (first > members.size()) return 0;
  return static_cast<double>(
      std::accumulate(members.begin() + (first - 1), members.end(), std::uint64_t{0}));
}

// Probability that a cell is at least `set`: some element of set..s wrote it.
double at_least(const BloomParams& params, std::span<const std::uint64_t> members,
                std::uint32_t set) {
  return 1 - miss_all(params.m, params.k * members_from(members, set));
}

// Whether the formulas apply: valid m and k (validate()), and a set in range.
bool in_range(const BloomParams& params, std::span<const std::uint64_t> members,
              std::uint32_t set) {
  return !validate(params) && set >= 1 && set <= members.size();
}

}  // namespace

double sbf_expected_cells(const BloomParams& params, std::span<const std::uint64_t> members,
                          std::uint32_t set) {
  if (!in_range(params, members, set)) return 0;
  const double written = 1 - miss_all(params.m, params.k * static_cast<double>(members[set - 1]));
  return static_cast<double>(params.m) * written * sbf_expected_emersion(params, members, set);
}

double sbf_expected_emersion(const BloomParams& params, std::span<const std::uint64_t> members,
                             std::uint32_t set) {
  if (!in_range(params, members, set)) return 0;
  return miss_all(params.m, params.k * members_from(members, set + 1));
}

double sbf_expected_fpr(const BloomParams& params, std::span<const std::uint64_t> members,
                        std::uint32_t set) {
  if (!in_range(params, members, set)) return 0;
  const double k = params.k;
  return std::pow(at_least(params, members, set), k) -
         std::pow(at_least(params, members, set + 1), k);
}

double sbf_expected_isep(const BloomParams& params, std::span<const std::uint64_t> members,
                         std::uint32_t set) {
  if (!in_range(params, members, set)) return 0;
  return std::pow(at_least(params, members, set + 1), params.k);
}

Result<SpatialBloomFilter> SpatialBloomFilter::create(BloomParams params, std::uint32_t sets,
                                                      Hasher hasher) {
  if (const std::error_code ec = validate(params)) return ec;
  if (sets == 0 || sets > kMaxSets) return make_error_code(FilterErrc::invalid_sets);
  return SpatialBloomFilter(params, sets, hasher);
}

Result<SpatialBloomFilter> SpatialBloomFilter::for_capacity(std::uint64_t n, double p,
                                                            std::uint32_t sets, Hasher hasher) {
  auto params = optimal_params(n, p);
  if (!params) return params.error();
  return create(*params, sets, hasher);
}

SpatialBloomFilter::SpatialBloomFilter(BloomParams params, std::uint32_t sets, Hasher hasher)
    : params_(params),
      sets_(sets),
      hasher_(hasher),
      members_(sets, 0),
      holding_(std::size_t{sets} + 1, 0),
      written_(sets, 0) {
  if (sets <= 0xFF) {
    cells8_.assign(params.m, 0);
  } else {
    cells16_.assign(params.m, 0);
  }
  holding_[0] = params.m;
}

template <class Cell>
void SpatialBloomFilter::raise(FilterArray<Cell>& cells, const Hash128& h, std::uint32_t set) {
  ProbeSequence probes(h, params_.m);
  for (std::uint32_t i = 0; i < params_.k; ++i) {
    Cell& cell = cells[probes.next()];
    if (cell >= set) continue;  // kept by a higher set, or this set's own earlier probe
    --holding_[cell];
    ++holding_[set];
    ++written_[set - 1];
    cell = static_cast<Cell>(set);
  }
}

std::error_code SpatialBloomFilter::insert(const Hash128& h, std::uint32_t set) {
  if (!valid_set(set)) return make_error_code(FilterErrc::invalid_sets);
  if (cells8_.empty()) {
    raise(cells16_, h, set);
  } else {
    raise(cells8_, h, set);
  }
  ++members_[set - 1];
  in_order_ = in_order_ && set >= last_set_;
  last_set_ = set;
  return {};
}

// No early exit on an empty cell: for a key of no set the first empty cell
// falls at a random probe, and the branch would mispredict (as in
// BloomFilter::contains). The k loads are independent.
template <class Cell>
std::uint32_t SpatialBloomFilter::lowest(const FilterArray<Cell>& cells, const Hash128& h) const {
  ProbeSequence probes(h, params_.m);
  Cell low = cells[probes.next()];
  for (std::uint32_t i = 1; i < params_.k; ++i) low = std::min(low, cells[probes.next()]);
  return low;
}

std::uint32_t SpatialBloomFilter::query(const Hash128& h) const {
  return cells8_.empty() ? lowest(cells16_, h) : lowest(cells8_, h);
}

std::uint64_t SpatialBloomFilter::members(std::uint32_t set) const {
  return valid_set(set) ? members_[set - 1] : 0;
}

std::span<const std::uint64_t> SpatialBloomFilter::all_members() const { return members_; }

std::uint64_t SpatialBloomFilter::cells_holding(std::uint32_t value) const {
  return value <= sets_ ? holding_[value] : 0;
}

double SpatialBloomFilter::expected_cells(std::uint32_t set) const {
  return sbf_expected_cells(params_, members_, set);
}

double SpatialBloomFilter::expected_emersion(std::uint32_t set) const {
  return sbf_expected_emersion(params_, members_, set);
}

double SpatialBloomFilter::expected_fpr(std::uint32_t set) const {
  return sbf_expected_fpr(params_, members_, set);
}

double SpatialBloomFilter::expected_isep(std::uint32_t set) const {
  return sbf_expected_isep(params_, members_, set);
}

double SpatialBloomFilter::expected_fpr() const {
  return std::pow(at_least(params_, members_, 1), params_.k);
}

std::optional<double> SpatialBloomFilter::emersion(std::uint32_t set) const {
  if (!valid_set(set) || !in_order_ || written_[set - 1] == 0) return std::nullopt;
  return static_cast<double>(holding_[set]) / static_cast<double>(written_[set - 1]);
}

double SpatialBloomFilter::fpr_from_cells(std::uint32_t set) const {
  if (!valid_set(set)) return 0;
  // C(>=i): the cells holding i or more, summed from the top.
  double above = 0;
  for (std::uint32_t v = sets_; v > set; --v) above += static_cast<double>(holding_[v]);
  const double at_or_above = above + static_cast<double>(holding_[set]);
  const double m = static_cast<double>(params_.m);
  return std::pow(at_or_above / m, params_.k) - std::pow(above / m, params_.k);
}

std::optional<double> SpatialBloomFilter::isep_from_cells(std::uint32_t set) const {
  const std::optional<double> e = emersion(set);
  if (!e) return std::nullopt;
  return std::pow(1 - *e, params_.k);
}

double SpatialBloomFilter::fpr_from_cells() const {
  const double nonzero = static_cast<double>(params_.m - holding_[0]);
  return std::pow(nonzero / static_cast<double>(params_.m), params_.k);
}

}  // namespace sumcache::filters
