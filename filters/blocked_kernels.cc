#include "filters/blocked_kernels.h"

namespace sumcache::filters {
namespace {

// The scalar reference: word by word, as docs/filters_blocked.md describes the layout.
void scalar_add(SplitBlock& block, std::uint64_t h2) {
  for (unsigned w = 0; w < kBlockWords; ++w) block.words[w] |= word_mask(h2, w);
}

// The early exit is faster than a branch-free OR of the eight tests: 35 against
// 53 to 96 ns per lookup in a 256 MiB filter on our 2-core EPYC machine.
bool scalar_contains(const SplitBlock& block, std::uint64_t h2) {
  for (unsigned w = 0; w < kBlockWords; ++w) {
    if ((block.words[w] & word_mask(h2, w)) == 0) return false;
  }
  return true;
}

void scalar_contains_batch(std::span<const SplitBlock> blocks, std::span<const Hash128> hashes,
                           bool* out) {
  const std::size_t count = hashes.size();
  for (std::size_t i = 0; i < count && i < kPrefetchDistance; ++i) {
    __builtin_prefetch(&block_of(blocks, hashes[i]));
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (i + kPrefetchDistance < count) {
      __builtin_prefetch(&block_of(blocks, hashes[i + kPrefetchDistance]));
    }
    out[i] = scalar_contains(block_of(blocks, hashes[i]), hashes[i].h2);
  }
}

constexpr BlockKernelOps kScalarBlockKernel{BlockKernel::scalar, &scalar_add, &scalar_contains,
                                            &scalar_contains_batch};

}  // namespace

bool block_kernel_supported(BlockKernel kernel) {
  if (kernel == BlockKernel::scalar) return true;
  // __builtin_cpu_init is needed only before constructors have run; calling it
  // again is harmless, so a caller from a static initializer is safe too.
  // libgcc's "avx2" also requires the OS to save YMM registers (XGETBV).
  static const bool has_avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has_avx2;
}

BlockKernel best_block_kernel() {
  return block_kernel_supported(BlockKernel::avx2) ? BlockKernel::avx2 : BlockKernel::scalar;
}

const BlockKernelOps& block_kernel_ops(BlockKernel kernel) {
  return kernel == BlockKernel::avx2 ? kAvx2BlockKernel : kScalarBlockKernel;
}

}  // namespace sumcache::filters
