#pragma once
// Rice codes (Golomb codes with divisor 2^r) for the gaps between ascending
// bit positions. Gap g: g >> r zero bits, a one bit, then the r low bits of g.
// For geometric gaps of mean mu the best r is near log2(mu ln 2) (Gallager and
// van Voorhis, IEEE Trans. IT 1975); Mitzenmacher (PODC 2001) notes that such
// codes come close to the entropy of a sparse Bloom filter.

#include <array>
#include <cstdint>

#include "protocol/bit_reader.h"
#include "protocol/bit_writer.h"

namespace sumcache::protocol {

// floor(log2(mean_gap * ln 2)), at least 0.
unsigned rice_parameter_for_mean(double mean_gap);

// Sums the exact coded size of a sequence of gaps for the parameter from the
// mean gap and its two neighbours, so that the encoder writes the smallest.
class RiceSizer {
 public:
  explicit RiceSizer(double mean_gap);
  void add(std::uint64_t gap) {
    for (std::size_t i = 0; i < candidates_.size(); ++i) quotients_[i] += gap >> candidates_[i];
    ++count_;
  }
  unsigned best_parameter() const;
  // Bits of all gaps coded with best_parameter().
  std::uint64_t best_bits() const;

 private:
  std::uint64_t bits(std::size_t i) const { return count_ * (candidates_[i] + 1) + quotients_[i]; }

  std::array<unsigned, 3> candidates_{};
  std::array<std::uint64_t, 3> quotients_{};
  std::uint64_t count_ = 0;
};

inline void put_rice(BitWriter& out, std::uint64_t gap, unsigned r) {
  const std::uint64_t quotient = gap >> r;
  if (quotient + 1 + r <= 64) {  // the usual case: the whole code in one write
    const std::uint64_t low = r == 0 ? 0 : (gap & ((std::uint64_t{1} << r) - 1)) << (quotient + 1);
    out.put(low | (std::uint64_t{1} << quotient), static_cast<unsigned>(quotient + 1 + r));
    return;
  }
  out.put_zeros(quotient);
  out.put(1, 1);
  out.put(gap, r);
}

// False if the code is cut short or its gap would exceed max_gap.
inline bool get_rice(BitReader& in, unsigned r, std::uint64_t max_gap, std::uint64_t& gap) {
  std::uint64_t quotient = 0;
  std::uint64_t low = 0;
  if (!in.get_unary(max_gap >> r, quotient) || !in.get(r, low)) return false;
  gap = (quotient << r) | low;
  return gap <= max_gap;
}

}  // namespace sumcache::protocol
