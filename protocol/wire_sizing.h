#pragma once
// What a full summary costs on the wire, and the (m, k) that make it cheapest
// for a false positive rate. Compressed Bloom Filters (Mitzenmacher, PODC
// 2001): for a filter that is transmitted, minimise the bits sent, not m; the
// answer is a larger, sparser array with fewer hashes, coded. The cost is the
// sender's counting filter and each receiver's copy, which grow with m
// (docs/protocol.md, "Sizing a transmitted summary").

#include <cstdint>

#include "filters/filter_params.h"
#include "filters/result.h"

namespace sumcache::protocol {

struct WireEstimate {
  filters::BloomParams params;
  double fpr = 0;                     // (fill)^k after n keys
  double wire_bits_per_entry = 0;     // payload only: min(raw, Rice-coded rarer bits)
  double entropy_bits_per_entry = 0;  // m H(fill) / n: no coder does better on average
};

// Expected values after n distinct keys, fill = 1 - (1 - 1/m)^(kn); the Rice
// estimate assumes geometric gaps with the best parameter. n = 0 counts as 1.
WireEstimate estimate_wire(std::uint64_t n, filters::BloomParams params);
// For each k, the least m whose fpr <= target_fpr (more m only adds wire
// bits), then the k with the fewest wire bits.
Result<WireEstimate> wire_optimal(std::uint64_t n, double target_fpr);

}  // namespace sumcache::protocol
