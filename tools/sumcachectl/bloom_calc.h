#pragma once
// bloom-calc: a filter's sizes and rates from n and a target (p, or bits per
// entry), with the daemon's own math: filters/filter_params.h for m and k,
// protocol/wire_sizing.h for the summary on the wire. For a target p it also
// sizes the filter as filter.objective "wire" would (docs/configuration.md),
// so the two can be compared.

#include <cstdint>
#include <optional>
#include <string>

#include "filters/filter_params.h"
#include "filters/result.h"

namespace sumcache::tools {

struct BloomCalcInput {
  std::uint64_t entries = 0;
  double fpr = 0;             // target p, or 0 when bits_per_entry is given
  double bits_per_entry = 0;  // as the config's filter.bits_per_entry
  std::uint32_t hashes = 0;   // 0 = optimal for the load (or for p)
};

// One filter's figures after n distinct keys.
struct FilterFigures {
  filters::BloomParams params;
  double expected_fpr = 0;
  std::uint64_t plain_bytes = 0;     // BloomFilter: m bits in 64-bit words
  std::uint64_t counting_bytes = 0;  // CountingBloomFilter: 4-bit counters, two per byte
  // A full summary's payload (raw or Rice-coded, the smaller), estimated by
  // protocol::estimate_wire; a message adds its header, node id and tag.
  double wire_bits_per_entry = 0;
  std::uint64_t wire_bytes = 0;
};

struct BloomCalc {
  BloomCalcInput input;
  FilterFigures memory;               // the given load, or the fewest counters for input.fpr
  std::optional<FilterFigures> wire;  // input.fpr only: the fewest wire bits for it
};

FilterFigures filter_figures(std::uint64_t entries, filters::BloomParams params);
Result<BloomCalc> bloom_calc(const BloomCalcInput& input);
std::string format_bloom_calc(const BloomCalc& calc);

}  // namespace sumcache::tools
