#pragma once
// SortedRun: a sorted multiset of 16-bit values in one malloc'd block sized to
// fit glibc's chunks exactly, for FingerprintTable's buckets. An insert or
// erase moves only this run's elements. The block grows by about 1/16 and
// shrinks once a quarter is unused (plus 16 elements, so that an add and a
// remove at a boundary do not reallocate each time).

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace sumcache::filters {

// What a block of `bytes` takes from glibc's heap: the request plus its 8-byte
// header, rounded up to 16, at least 32 (none for no block).
inline std::size_t heap_block_bytes(std::size_t bytes) {
  return bytes == 0 ? 0 : std::max<std::size_t>(32, (bytes + 8 + 15) & ~std::size_t{15});
}

class SortedRun {
 public:
  SortedRun() = default;
  SortedRun(const SortedRun& other) {
    if (other.size_ == 0) return;
    resize_block(capacity_for(other.size_));
    std::memcpy(data_, other.data_, std::size_t{other.size_} * sizeof(std::uint16_t));
    size_ = other.size_;
  }
  SortedRun& operator=(const SortedRun&) = delete;
  ~SortedRun() { std::free(data_); }

  std::uint32_t size() const { return size_; }
  const std::uint16_t* begin() const { return data_; }
  const std::uint16_t* end() const { return data_ + size_; }

  // Elements below v, and elements equal to v.
  std::uint32_t below(std::uint16_t v) const {
    return static_cast<std::uint32_t>(std::lower_bound(begin(), end(), v) - begin());
  }
  std::uint32_t count(std::uint16_t v) const {
    const auto range = std::equal_range(begin(), end(), v);
    return static_cast<std::uint32_t>(range.second - range.first);
  }

  void insert(std::uint16_t v) {
    assert(size_ < UINT32_MAX);
    if (size_ == capacity_) resize_block(capacity_for(std::uint64_t{size_} + 1 + size_ / 16));
    std::uint16_t* at = std::upper_bound(data_, data_ + size_, v);
    std::memmove(at + 1, at, static_cast<std::size_t>(data_ + size_ - at) * sizeof(std::uint16_t));
    *at = v;
    ++size_;
  }

  // False, the run unchanged, when v is not held.
  bool erase(std::uint16_t v) {
    std::uint16_t* at = std::lower_bound(data_, data_ + size_, v);
    if (at == data_ + size_ || *at != v) return false;
    std::memmove(at, at + 1, static_cast<std::size_t>(data_ + size_ - at - 1) * sizeof(std::uint16_t));
    --size_;
    if (size_ == 0) {
      std::free(data_);
      data_ = nullptr;
      capacity_ = 0;
    } else if (capacity_ - size_ > 16 + size_ / 4) {
      resize_block(capacity_for(std::uint64_t{size_} + size_ / 16));
    }
    return true;
  }

  // heap_block_bytes of the block, which the capacities below fill exactly.
  std::size_t memory_bytes() const {
    return heap_block_bytes(std::size_t{capacity_} * sizeof(std::uint16_t));
  }

 private:
  // 2c + 8 a multiple of 16 and at least 32: c in {12, 20, 28, ...}.
  static std::uint32_t capacity_for(std::uint64_t wanted) {
    if (wanted <= 12) return 12;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>((wanted - 4 + 7) / 8 * 8 + 4, UINT32_MAX - 3));
  }
  void resize_block(std::uint32_t capacity) {
    void* block = std::realloc(data_, std::size_t{capacity} * sizeof(std::uint16_t));
    if (block == nullptr) throw std::bad_alloc();
    data_ = static_cast<std::uint16_t*>(block);
    capacity_ = capacity;
  }

  std::uint16_t* data_ = nullptr;
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = 0;
};

}  // namespace sumcache::filters
