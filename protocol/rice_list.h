#pragma once
// A sorted list Rice coded as its gaps (docs/protocol.md, "Fingerprint
// gaps"): gap_0 = v_0; an ascending list with repeats (fingerprints) codes
// v_i - v_(i-1), a strictly ascending one (ranks, like bit positions)
// v_i - v_(i-1) - 1.

#include <cstdint>
#include <span>
#include <vector>

#include "protocol/bit_reader.h"
#include "protocol/bit_writer.h"

namespace sumcache::protocol {

enum class ListOrder { ascending, distinct };

struct RiceChoice {
  unsigned parameter = 0;
  std::uint64_t bits = 0;  // the whole list coded with it
};

// The parameter that codes `values` in the fewest bits among the one from
// their mean gap and its two neighbours (RiceSizer); 0 for an empty list.
// Requires `values` sorted in `order`.
RiceChoice choose_rice(std::span<const std::uint64_t> values, ListOrder order);

void put_rice_list(BitWriter& out, std::span<const std::uint64_t> values, ListOrder order,
                   unsigned r);

// Reads `count` codes with parameter r, appending the values to `out`; false
// when a code is cut short or takes a value to `bound` or past. Reserving
// `out` is the caller's, after checking count against the bits present.
bool get_rice_list(BitReader& in, std::uint64_t count, unsigned r, ListOrder order,
                   std::uint64_t bound, std::vector<std::uint64_t>& out);

}  // namespace sumcache::protocol
