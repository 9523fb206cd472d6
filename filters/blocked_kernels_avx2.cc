// The AVX2 block kernel: a block is one 256-bit register, its eight bit masks
// are built in four instructions, and a lookup is one VPTEST.
//
// Only these functions carry target("avx2"); the file is compiled with the
// project's default flags. Compiling it with -mavx2 instead would let inline
// functions from shared headers (std::span, reduce, ...) be emitted here with
// AVX2 instructions, and the linker may keep that copy for every caller,
// including scalar ones on CPUs without AVX2. Every helper taking or
// returning __m256i is target("avx2") too, so no AVX value crosses a call
// with the default ABI.

#include <immintrin.h>

#include "filters/blocked_kernels.h"

namespace sumcache::filters {
namespace {

// The same masks as word_mask(h2, w) for w = 0..7, one per 32-bit lane.
__attribute__((target("avx2"))) inline __m256i block_masks(std::uint64_t h2) {
  // 64-bit lane j holds h2 >> 10j, so its low word has field 2j at bit 0 and field 2j + 1 at bit 5.
  const __m256i pairs = _mm256_srlv_epi64(_mm256_set1_epi64x(static_cast<long long>(h2)),
                                          _mm256_setr_epi64x(0, 10, 20, 30));
  // Copy each low word into the 32-bit lane above it, then shift odd lanes by 5.
  const __m256i doubled = _mm256_shuffle_epi32(pairs, _MM_SHUFFLE(2, 2, 0, 0));
  const __m256i fields = _mm256_and_si256(
      _mm256_srlv_epi32(doubled, _mm256_setr_epi32(0, 5, 0, 5, 0, 5, 0, 5)), _mm256_set1_epi32(31));
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), fields);
}

// SplitBlock is alignas(32), so aligned loads and stores are valid; __m256i may alias any type.
__attribute__((target("avx2"))) inline __m256i load(const SplitBlock& block) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(&block));
}

__attribute__((target("avx2"))) void avx2_add(SplitBlock& block, std::uint64_t h2) {
  _mm256_store_si256(reinterpret_cast<__m256i*>(&block),
                     _mm256_or_si256(load(block), block_masks(h2)));
}

// VPTEST sets CF when (~block & masks) == 0: every mask bit is present.
__attribute__((target("avx2"))) bool avx2_contains(const SplitBlock& block, std::uint64_t h2) {
  return _mm256_testc_si256(load(block), block_masks(h2)) != 0;
}

// The scalar batch loop, with the AVX2 test inlined; a shared template could
// not be, because a default-target function cannot inline an AVX2 one.
__attribute__((target("avx2"))) void avx2_contains_batch(std::span<const SplitBlock> blocks,
                                                         std::span<const Hash128> hashes,
                                                         bool* out) {
  const std::size_t count = hashes.size();
  for (std::size_t i = 0; i < count && i < kPrefetchDistance; ++i) {
    __builtin_prefetch(&block_of(blocks, hashes[i]));
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (i + kPrefetchDistance < count) {
      __builtin_prefetch(&block_of(blocks, hashes[i + kPrefetchDistance]));
    }
    out[i] = avx2_contains(block_of(blocks, hashes[i]), hashes[i].h2);
  }
}

}  // namespace

const BlockKernelOps kAvx2BlockKernel{BlockKernel::avx2, &avx2_add, &avx2_contains,
                                      &avx2_contains_batch};

}  // namespace sumcache::filters
