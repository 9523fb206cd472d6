#pragma once
// A split-block Bloom filter (Putze, Sanders and Singler, "Cache-, Hash- and
// Space-Efficient Bloom Filters", WEA 2007; the layout of Impala's and
// Parquet's SBBF): 256-bit blocks of eight 32-bit words; a key's one hash picks
// a block and one bit in each word (k = 8), so a lookup touches one cache line.
// It holds a peer's summary: read-only once built, no remove.
// Layout, hash bits, formula and figures: docs/filters_blocked.md.

#include <cstdint>
#include <span>
#include <string_view>
#include <system_error>
#include <vector>

#include "filters/blocked_kernels.h"
#include "filters/filter_params.h"
#include "filters/hashing.h"
#include "filters/huge_page_allocator.h"
#include "filters/result.h"

namespace sumcache::filters {

class BlockedBloomFilter {
 public:
  static constexpr std::uint64_t kMaxBlocks = kMaxBits / kBlockBits;

  // num_blocks in [1, kMaxBlocks]; the kernel must run on this CPU.
  static Result<BlockedBloomFilter> create(std::uint64_t num_blocks, Hasher hasher = {},
                                           BlockKernel kernel = best_block_kernel());
  // The fewest blocks whose expected_fpr after n keys is at most p.
  static Result<BlockedBloomFilter> for_capacity(std::uint64_t n, double p, Hasher hasher = {});

  // This filter's own rate, not the plain filter's (1 - e^(-kn/m))^k (Putze,
  // Sanders and Singler 2007): with lambda = n / num_blocks,
  //   sum over i >= 0 of Poisson(i; lambda) * (1 - (31/32)^i)^8,
  // the rate of a block holding i keys (each word a 32-bit part in which a key
  // sets one bit), weighted by how often a block holds i keys. It is above a
  // plain filter's at equal bits per key: loads vary from block to block and
  // the block rate is convex in the load up to 65 keys a block (4 bits per
  // key), so crowded blocks lose more than sparse ones gain; and k = 8 is
  // fixed, where a plain filter picks k = (m/n) ln 2.
  static double expected_fpr(std::uint64_t num_blocks, std::uint64_t n);

  void add(std::string_view key) { add(hasher_(key)); }
  void add(const Hash128& h);
  bool contains(std::string_view key) const { return contains(hasher_(key)); }
  bool contains(const Hash128& h) const;
  // out[i] = contains(hashes[i]) (or keys[i]), prefetching the blocks of keys
  // further on. size_mismatch, with out untouched, unless out.size() == input size.
  std::error_code contains_batch(std::span<const Hash128> hashes, std::span<bool> out) const;
  std::error_code contains_batch(std::span<const std::string_view> keys, std::span<bool> out) const;

  std::uint64_t count_set_bits() const;
  std::uint64_t num_blocks() const { return blocks_.size(); }
  std::uint64_t num_bits() const { return blocks_.size() * kBlockBits; }
  std::size_t memory_bytes() const { return blocks_.size() * sizeof(SplitBlock); }
  std::span<const SplitBlock> blocks() const { return blocks_; }
  const Hasher& hasher() const { return hasher_; }
  BlockKernel kernel() const { return ops_->kind; }

  // Same hasher and bits; the kernel does not change what the filter holds.
  friend bool operator==(const BlockedBloomFilter& a, const BlockedBloomFilter& b) {
    return a.hasher_ == b.hasher_ && a.blocks_ == b.blocks_;
  }

 private:
  BlockedBloomFilter(std::uint64_t num_blocks, Hasher hasher, const BlockKernelOps& ops);
  Hasher hasher_;
  const BlockKernelOps* ops_;
  FilterArray<SplitBlock> blocks_;  // alignas(32) elements: the allocator aligns them
};

}  // namespace sumcache::filters
