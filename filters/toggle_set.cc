#include "filters/toggle_set.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace sumcache::filters {

ToggleSet::ToggleSet(std::size_t min_capacity)
    : min_capacity_(std::bit_ceil(std::max<std::size_t>(min_capacity, 2))) {
  reset(min_capacity_);
}

// capacity is a power of two; every slot becomes empty.
void ToggleSet::reset(std::size_t capacity) {
  std::vector<std::uint64_t>(capacity, kEmpty).swap(slots_);
  shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
  size_ = 0;
}

bool ToggleSet::contains(std::uint64_t x) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = home(x); slots_[slot] != kEmpty; slot = (slot + 1) & mask) {
    if (slots_[slot] == x) return true;
  }
  return false;
}

// Algorithm R: walk the run after the hole and move back each value whose home
// does not lie cyclically in (hole, current], so every value stays reachable
// from its home without tombstones.
void ToggleSet::erase_at(std::size_t slot) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t hole = slot;
  for (std::size_t next = (hole + 1) & mask; slots_[next] != kEmpty; next = (next + 1) & mask) {
    const std::size_t h = home(slots_[next]);
    const bool stays = hole <= next ? (hole < h && h <= next) : (hole < h || h <= next);
    if (!stays) {
      slots_[hole] = slots_[next];
      hole = next;
    }
  }
  slots_[hole] = kEmpty;
  --size_;
}

void ToggleSet::grow() {
  const std::vector<std::uint64_t> old = std::move(slots_);
  const std::size_t size = size_;
  reset(old.size() * 2);
  const std::size_t mask = slots_.size() - 1;
  for (std::uint64_t x : old) {
    if (x == kEmpty) continue;
    std::size_t slot = home(x);
    while (slots_[slot] != kEmpty) slot = (slot + 1) & mask;
    slots_[slot] = x;
  }
  size_ = size;
}

std::vector<std::uint64_t> ToggleSet::sorted() const {
  std::vector<std::uint64_t> values;
  values.reserve(size_);
  for (std::uint64_t x : slots_) {
    if (x != kEmpty) values.push_back(x);
  }
  std::sort(values.begin(), values.end());
  return values;
}

void ToggleSet::clear() {
  const std::size_t needed = std::max(min_capacity_, std::bit_ceil(2 * size_));
  if (slots_.size() > 2 * needed) {
    reset(needed);
    return;
  }
  std::fill(slots_.begin(), slots_.end(), kEmpty);
  size_ = 0;
}

}  // namespace sumcache::filters
