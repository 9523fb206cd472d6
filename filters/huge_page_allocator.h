#pragma once
// An allocator for filter arrays: below 2 MiB an ordinary aligned allocation;
// from 2 MiB on, 2 MiB-aligned memory marked MADV_HUGEPAGE. A lookup touches
// k random places in the array, and with 4 KiB pages a filter of 10^7 keys
// (12 MiB) spans 3,000 pages, more than the TLB holds, so most probes would
// also walk the page table. Transparent huge pages are often "madvise"-only
// (Debian's default), hence the advice. Linux-specific; elsewhere the advice
// is simply not given.

#include <cstddef>
#include <new>
#include <vector>

namespace sumcache::filters {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

void* allocate_filter_memory(std::size_t bytes, std::size_t alignment);
void free_filter_memory(void* p, std::size_t bytes, std::size_t alignment) noexcept;

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT: rebinding is implicit

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_filter_memory(n * sizeof(T), alignof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    free_filter_memory(p, n * sizeof(T), alignof(T));
  }

  template <class U>
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator<U>&) {
    return true;
  }
};

template <class T>
using FilterArray = std::vector<T, HugePageAllocator<T>>;

}  // namespace sumcache::filters
