#pragma once
// The size of a full summary on the wire, estimated from the filter's
// parameters: the bit view's set-bit positions as Golomb-Rice-coded gaps, or
// the raw bit array when that is smaller. Payload only, message header left out.
//
// A stand-in for protocol/wire_sizing.h's estimate_wire / wire_optimal, which
// were not on main when this was written: swap these two functions for those
// once feat/protocol is merged, and bloom-calc follows.

#include <cstdint>

#include "filters/filter_params.h"

namespace sumcache::tools {

struct WireEstimate {
  double set_bits = 0;          // expected: m (1 - e^(-kn/m))
  std::uint32_t rice_bits = 0;  // the Rice parameter that minimises the size
  bool raw = false;             // the plain bit array was smaller than the Rice code
  std::uint64_t bytes = 0;
};

WireEstimate estimate_summary_wire(const filters::BloomParams& params, std::uint64_t n);

// Compressed Bloom filters (Mitzenmacher, PODC 2001): for n keys and the wire size a
// filter with `reference` parameters takes, the m and k (k <= reference.k) with the lowest
// expected FPR whose estimated wire size is no larger. A larger, sparser filter with fewer
// hashes compresses better. The FPR keeps falling as m grows, so m is capped at
// kMaxWireOptimalGrowth times reference.m: every receiver holds each summary
// uncompressed. Returns `reference` when nothing beats it.
inline constexpr std::uint64_t kMaxWireOptimalGrowth = 4;
filters::BloomParams wire_optimal(const filters::BloomParams& reference, std::uint64_t n);

}  // namespace sumcache::tools
