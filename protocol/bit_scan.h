#pragma once
// Visits the positions of the ones (or zeros) of a bit array in ascending
// order, a word at a time.

#include <bit>
#include <cstdint>
#include <span>

namespace sumcache::protocol {

// Calls visit(position) for every bit in [0, m) whose value is `value`.
template <class Visit>
void for_each_bit(std::span<const std::uint64_t> words, std::uint64_t m, bool value,
                  Visit&& visit) {
  for (std::size_t w = 0; w < words.size(); ++w) {
    std::uint64_t word = value ? words[w] : ~words[w];
    if (w + 1 == words.size() && m % 64 != 0) word &= (std::uint64_t{1} << (m % 64)) - 1;
    while (word != 0) {
      visit(std::uint64_t{w} * 64 + static_cast<unsigned>(std::countr_zero(word)));
      word &= word - 1;
    }
  }
}

}  // namespace sumcache::protocol
