#include "filters/huge_page_allocator.h"

#include <sys/mman.h>

#include <cstdlib>

namespace sumcache::filters {

void* allocate_filter_memory(std::size_t bytes, std::size_t alignment) {
  if (bytes < kHugePageBytes) {
    return ::operator new (bytes, std::align_val_t{alignment});
  }
  const std::size_t rounded = (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  void* p = std::aligned_alloc(kHugePageBytes, rounded);
  if (p == nullptr) throw std::bad_alloc();
  // Advice only: without transparent huge pages the memory works as before.
  ::madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

void free_filter_memory(void* p, std::size_t bytes, std::size_t alignment) noexcept {
  if (bytes < kHugePageBytes) {
    ::operator delete (p, std::align_val_t{alignment});
  } else {
    std::free(p);
  }
}

}  // namespace sumcache::filters
