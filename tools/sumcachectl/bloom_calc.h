#pragma once
// bloom-calc: a filter's sizes and rates from n and a target (p, or bits per
// entry), with the same parameter math the daemon uses (filters/filter_params.h).

#include <cstdint>
#include <string>

#include "filters/filter_params.h"
#include "filters/result.h"
#include "tools/sumcachectl/wire_estimate.h"

namespace sumcache::tools {

struct BloomCalcInput {
  std::uint64_t entries = 0;
  double fpr = 0;             // target p, or 0 when bits_per_entry is given
  double bits_per_entry = 0;  // as the config's filter.bits_per_entry
  std::uint32_t hashes = 0;   // 0 = optimal for the load
};

struct BloomCalc {
  std::uint64_t entries = 0;
  filters::BloomParams params;
  double expected_fpr = 0;
  std::uint64_t plain_bytes = 0;      // BloomFilter: m bits in 64-bit words
  std::uint64_t counting_bytes = 0;   // CountingBloomFilter: 4-bit counters, two per byte
  WireEstimate wire;                  // the full summary on the wire
  filters::BloomParams wire_optimal;  // same wire bytes, lowest FPR
  double wire_optimal_fpr = 0;
};

Result<BloomCalc> bloom_calc(const BloomCalcInput& input);
std::string format_bloom_calc(const BloomCalc& calc);

}  // namespace sumcache::tools
