#pragma once
// A spatial Bloom filter (Palmieri, Calderoni and Maio, "Spatial Bloom
// Filters: Enabling Privacy in Location-aware Applications", Inscrypt 2014):
// m cells, each holding a set index, for s disjoint sets with priorities
// (index 1..s, higher is higher priority). Inserting an element of set i
// raises each of its k cells to max(cell, i); a query returns the smallest of
// its k cells, 0 for "no set". The paper inserts the sets in ascending order
// and overwrites; taking the max gives the same cells in any order.
// Formulas from Calderoni, Palmieri and Maio, "Probabilistic properties of the
// spatial Bloom filters and their relevance to cryptographic protocols"
// (IEEE TIFS, 2018; preprint 2015). Layout, formulas and measurements:
// docs/filters_spatial.md.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>
#include <vector>

#include "filters/filter_params.h"
#include "filters/hashing.h"
#include "filters/huge_page_allocator.h"
#include "filters/result.h"

namespace sumcache::filters {

// The a priori formulas of the paper, from m, k and the members of each set
// (members[i - 1] elements in set i); 0 unless `set` lies in [1, members.size()]
// and validate(params) passes.
// With q = 1 - 1/m and N(>i) the members of the sets above i:
// Cells expected to hold i: m (1 - q^(k n_i)) q^(k N(>i)).
double sbf_expected_cells(const BloomParams& params, std::span<const std::uint64_t> members,
                          std::uint32_t set);
// Expected emersion of set i, the share of the cells set i wrote that still
// hold i: q^(k N(>i)).
double sbf_expected_emersion(const BloomParams& params, std::span<const std::uint64_t> members,
                             std::uint32_t set);
// Probability that an element of no set, or of a set below i, is reported as
// set i: (1 - q^(k N(>=i)))^k - (1 - q^(k N(>i)))^k.
double sbf_expected_fpr(const BloomParams& params, std::span<const std::uint64_t> members,
                        std::uint32_t set);
// Inter-set error: probability that an element of set i is reported as a
// higher set (all k of its cells overwritten): (1 - q^(k N(>i)))^k.
double sbf_expected_isep(const BloomParams& params, std::span<const std::uint64_t> members,
                         std::uint32_t set);

class SpatialBloomFilter {
 public:
  // Cells are one byte up to 255 sets, two bytes up to 65535 (the paper's
  // reference library has the same bound).
  static constexpr std::uint32_t kMaxSets = 65535;

  // Errors: invalid_bits, invalid_hashes (validate()), invalid_sets (sets 0 or above kMaxSets).
  static Result<SpatialBloomFilter> create(BloomParams params, std::uint32_t sets,
                                           Hasher hasher = {});
  // Sized as a plain Bloom filter for n elements in all at rate p
  // (optimal_params): the rate at which an element of no set is reported as
  // some set is then p, the sum of the per-set rates.
  static Result<SpatialBloomFilter> for_capacity(std::uint64_t n, double p, std::uint32_t sets,
                                                 Hasher hasher = {});

  // invalid_sets, changing nothing, unless 1 <= set <= sets().
  std::error_code insert(std::string_view key, std::uint32_t set) {
    return insert(hasher_(key), set);
  }
  std::error_code insert(const Hash128& h, std::uint32_t set);
  // The set the key is reported in: the smallest of its k cells; 0 for none.
  std::uint32_t query(std::string_view key) const { return query(hasher_(key)); }
  std::uint32_t query(const Hash128& h) const;

  // Requires i < m.
  std::uint32_t cell(std::uint64_t i) const { return cells8_.empty() ? cells16_[i] : cells8_[i]; }
  std::uint32_t sets() const { return sets_; }
  std::size_t cell_bytes() const { return cells8_.empty() ? 2 : 1; }
  // Elements inserted into `set` (duplicates counted), 0 for a set out of range.
  std::uint64_t members(std::uint32_t set) const;
  std::span<const std::uint64_t> all_members() const;
  // Cells holding `value` now (value 0: empty cells); 0 for a value above sets().
  std::uint64_t cells_holding(std::uint32_t value) const;
  // Whether every insert named a set at or above the previous insert's, as
  // the paper builds the filter; measured emersion needs it.
  bool inserted_in_order() const { return in_order_; }

  // The formulas above for this filter's members.
  double expected_cells(std::uint32_t set) const;
  double expected_emersion(std::uint32_t set) const;
  double expected_fpr(std::uint32_t set) const;
  double expected_isep(std::uint32_t set) const;
  // Any set: (1 - q^(k n))^k, n all members; the plain Bloom filter's rate.
  double expected_fpr() const;

  // Measured counterparts, from the cells as they are (the paper's
  // "a posteriori" values). Emersion: cells holding i over the distinct cells
  // set i wrote; nullopt if the set is empty or the inserts were out of order
  // (a cell raised past i earlier hides whether set i wrote it).
  std::optional<double> emersion(std::uint32_t set) const;
  // (C(>=i) / m)^k - (C(>i) / m)^k, C counting the cells holding those values.
  double fpr_from_cells(std::uint32_t set) const;
  // (1 - emersion)^k; nullopt when emersion is.
  std::optional<double> isep_from_cells(std::uint32_t set) const;
  // (nonzero cells / m)^k.
  double fpr_from_cells() const;

  const BloomParams& params() const { return params_; }
  const Hasher& hasher() const { return hasher_; }
  std::size_t memory_bytes() const {
    return cells8_.size() + cells16_.size() * sizeof(std::uint16_t);
  }

 private:
  SpatialBloomFilter(BloomParams params, std::uint32_t sets, Hasher hasher);
  template <class Cell>
  void raise(FilterArray<Cell>& cells, const Hash128& h, std::uint32_t set);
  template <class Cell>
  std::uint32_t lowest(const FilterArray<Cell>& cells, const Hash128& h) const;
  bool valid_set(std::uint32_t set) const { return set >= 1 && set <= sets_; }

  BloomParams params_;
  std::uint32_t sets_;
  Hasher hasher_;
  FilterArray<std::uint8_t> cells8_;    // sets <= 255, else empty
  FilterArray<std::uint16_t> cells16_;  // sets > 255, else empty
  std::vector<std::uint64_t> members_;  // [i - 1]: elements inserted into set i
  std::vector<std::uint64_t> holding_;  // [v]: cells holding v, v in 0..sets
  std::vector<std::uint64_t>
      written_;  // [i - 1]: cells raised to i from below (distinct cells when in order)
  std::uint32_t last_set_ = 0;
  bool in_order_ = true;
};

}  // namespace sumcache::filters
