#pragma once
// A set of 64-bit values where toggle(x) inserts x if absent and erases it if
// present: the parity of how often each value was toggled. The counting
// filter's change log, holding the bit positions that flipped an odd number of
// times since the last push, so that its size is the net churn, never the
// number of flips.
//
// Open addressing with linear probing and backward-shift deletion (Knuth, TAOCP
// vol. 3, 6.4, Algorithm R): no tombstones, so flapping values leave nothing
// behind. Load stays at most 1/2: the table doubles past that, and only
// clear() shrinks it, so toggling allocates only while the net churn of a
// window exceeds that of the one before.

#include <cassert>
#include <cstdint>
#include <vector>

namespace sumcache::filters {

class ToggleSet {
 public:
  // Reserved as the empty slot; every other value may be toggled.
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

  // Room for min_capacity / 2 values before the first growth.
  explicit ToggleSet(std::size_t min_capacity = 16);

  // Inline: the counting filter calls it on every 0 <-> nonzero transition.
  // The common case does not branch on whether x is inserted or erased, which
  // a stream of flapping bits makes a coin toss: x's home is empty (x is
  // absent), or holds x with an empty slot after it (erasing moves nothing).
  void toggle(std::uint64_t x) {
    assert(x != kEmpty);
    const std::size_t mask = slots_.size() - 1;
    const std::size_t at = home(x);
    const std::uint64_t here = slots_[at];
    const bool erase = here == x;
    const bool run_ends = slots_[(at + 1) & mask] == kEmpty;
    // As integers: GCC turns `a || (b && c)`, and even `a | (b & c)` on
    // bools, into one branch per term.
    const unsigned simple = static_cast<unsigned>(here == kEmpty) +
                            (static_cast<unsigned>(erase) & static_cast<unsigned>(run_ends));
    if (simple != 0) {
      slots_[at] = erase ? kEmpty : x;
      size_ = size_ + 1 - 2 * std::size_t{erase};
      if (size_ > slots_.size() / 2) grow();
      return;
    }
    for (std::size_t slot = at;; slot = (slot + 1) & mask) {
      if (slots_[slot] == x) {
        erase_at(slot);
        return;
      }
      if (slots_[slot] == kEmpty) {
        slots_[slot] = x;
        if (++size_ > slots_.size() / 2) grow();
        return;
      }
    }
  }
  bool contains(std::uint64_t x) const;
  std::size_t size() const { return size_; }
  // The values in ascending order.
  std::vector<std::uint64_t> sorted() const;
  // Empties the set. Keeps the table unless it is more than twice the size
  // that the values just cleared needed; then cuts it to that size.
  void clear();
  std::size_t memory_bytes() const { return slots_.size() * sizeof(std::uint64_t); }

 private:
  // Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4): the top bits of x times
  // 2^64 / phi spread runs of consecutive values across the table.
  std::size_t home(std::uint64_t x) const {
    return static_cast<std::size_t>((x * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  void erase_at(std::size_t slot);
  void grow();
  void reset(std::size_t capacity);

  std::size_t min_capacity_;
  std::vector<std::uint64_t> slots_;
  std::size_t size_ = 0;
  unsigned shift_ = 0;  // 64 - log2(slots_.size())
};

}  // namespace sumcache::filters
