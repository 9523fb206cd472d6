#pragma once
// How BlockedBloomFilter sets and tests its 256-bit blocks: a scalar reference
// (blocked_kernels.cc) and an AVX2 kernel (blocked_kernels_avx2.cc), picked at
// run time. Both must leave the same bits and give the same answers; the typed
// test BlockKernelAgreement in tests/filters/blocked_bloom_filter_test.cc holds them to it.

#include <cstddef>
#include <cstdint>
#include <span>

#include "filters/hashing.h"

namespace sumcache::filters {

inline constexpr std::uint64_t kBlockBits = 256;
inline constexpr unsigned kBlockWords = 8;  // also k: one bit per word

// Eight 32-bit words. 32-byte alignment means a block never straddles a
// 64-byte cache line, so a lookup is one memory access.
struct alignas(32) SplitBlock {
  std::uint32_t words[kBlockWords] = {};
  friend bool operator==(const SplitBlock&, const SplitBlock&) = default;
};

// The bit a key sets in word w is bits [5w, 5w + 5) of h2. h2 is one half of
// a full-avalanche 128-bit hash (XXH3-128 or MD5), so disjoint fields are
// independent and uniform: exactly what expected_fpr assumes. Multiplying one
// 32-bit value by eight constants (Parquet's SBBF) would draw all eight
// indexes from 32 bits, correlated in ways the formula does not model.
inline std::uint32_t word_mask(std::uint64_t h2, unsigned w) {
  return std::uint32_t{1} << ((h2 >> (5 * w)) & 31);
}

// A key's block: multiply-shift on h1, which the bit indexes do not use.
inline const SplitBlock& block_of(std::span<const SplitBlock> blocks, const Hash128& h) {
  return blocks[reduce(h.h1, blocks.size())];
}

// Batches prefetch the block of key i + kPrefetchDistance while testing key i.
// A DRAM miss (with its page walk) costs as much as dozens of cached lookups,
// so dozens must be in flight. AVX2 batch in a 256 MiB filter, ns per key, at
// distance 16/32/64/128: 7.8/5.9/4.5/4.4 (docs/filters_blocked.md, "Batches").
inline constexpr std::size_t kPrefetchDistance = 64;

enum class BlockKernel : std::uint8_t { scalar, avx2 };

struct BlockKernelOps {
  BlockKernel kind;
  void (*add)(SplitBlock& block, std::uint64_t h2);
  bool (*contains)(const SplitBlock& block, std::uint64_t h2);
  // out[i] = contains(block_of(blocks, hashes[i]), hashes[i].h2); out has hashes.size() slots.
  void (*contains_batch)(std::span<const SplitBlock> blocks, std::span<const Hash128> hashes,
                         bool* out);
};

// avx2 needs the CPU feature (and the OS saving YMM state); scalar always runs.
bool block_kernel_supported(BlockKernel kernel);
// avx2 where supported, else scalar; the CPU is asked once per process.
BlockKernel best_block_kernel();
// The kernel's functions; calling avx2 ones on a CPU without AVX2 faults.
const BlockKernelOps& block_kernel_ops(BlockKernel kernel);

extern const BlockKernelOps kAvx2BlockKernel;  // defined in blocked_kernels_avx2.cc

}  // namespace sumcache::filters
