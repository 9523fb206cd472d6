#include "filters/blocked_bloom_filter.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

// The Poisson sum stops once a term's probability is below this share of the
// sum so far: every block rate is at most 1, and beyond the mode the Poisson
// terms shrink faster than geometrically, so the rest cannot show in a double.
constexpr double kNegligibleTail = 1e-17;

// From a mean load of 4096 keys per block the sum is 1.0 in double precision:
// a block holding 1300 keys or more has rate above 1 - 8 (31/32)^1300 > 1 - 1e-17,
// and one holding fewer has Poisson probability below e^-1300 (Chernoff).
// Summing would only cost thousands of terms per call.
constexpr double kSaturatedLoad = 4096;

// The false positive rate of a block holding i keys: the bit probed in each of
// its 8 words is still clear with probability (31/32)^i; a false positive needs
// all 8 set.
double block_fpr(double i) { return std::pow(-std::expm1(i * std::log1p(-1.0 / 32)), kBlockWords); }

// The keyed batch hashes this many keys onto the stack (1 KiB), then runs the
// hashed batch over them. Each chunk waits once for memory before its first
// test; hashing 64 URLs takes several times that wait.
constexpr std::size_t kHashChunk = kPrefetchDistance;

}  // namespace

BlockedBloomFilter::BlockedBloomFilter(std::uint64_t num_blocks, Hasher hasher,
                                       const BlockKernelOps& ops)
    : hasher_(hasher), ops_(&ops), blocks_(static_cast<std::size_t>(num_blocks)) {}

Result<BlockedBloomFilter> BlockedBloomFilter::create(std::uint64_t num_blocks, Hasher hasher,
                                                      BlockKernel kernel) {
  if (num_blocks == 0 || num_blocks > kMaxBlocks) return make_error_code(FilterErrc::invalid_bits);
  if (!block_kernel_supported(kernel)) return make_error_code(FilterErrc::unsupported_kernel);
  return BlockedBloomFilter(num_blocks, hasher, block_kernel_ops(kernel));
}

Result<BlockedBloomFilter> BlockedBloomFilter::for_capacity(std::uint64_t n, double p,
                                                            Hasher hasher) {
  if (n == 0) return make_error_code(FilterErrc::invalid_entries);
  if (!(p > 0.0 && p < 1.0)) return make_error_code(FilterErrc::invalid_fpr);
  if (expected_fpr(kMaxBlocks, n) > p) return make_error_code(FilterErrc::size_overflow);
  // expected_fpr falls as blocks are added (a lighter Poisson load on an
  // increasing block rate), so binary search finds the fewest blocks meeting p.
  std::uint64_t too_few = 0;  // 0 blocks meet no target
  std::uint64_t enough = kMaxBlocks;
  while (enough - too_few > 1) {
    const std::uint64_t mid = too_few + (enough - too_few) / 2;
    if (expected_fpr(mid, n) <= p) {
      enough = mid;
    } else {
      too_few = mid;
    }
  }
  return create(enough, hasher);
}

double BlockedBloomFilter::expected_fpr(std::uint64_t num_blocks, std::uint64_t n) {
  if (n == 0) return 0.0;
  if (num_blocks == 0) return 1.0;
  const double lambda = static_cast<double>(n) / static_cast<double>(num_blocks);
  if (lambda >= kSaturatedLoad) return 1.0;
  // Start at the mode, where the Poisson probability is largest, computed in
  // logs (e^-lambda alone underflows past lambda = 745), and walk both ways.
  const double mode = std::floor(lambda);
  const double p_mode = std::exp(mode * std::log(lambda) - lambda - std::lgamma(mode + 1));
  double sum = p_mode * block_fpr(mode);
  double p = p_mode;
  for (double i = mode + 1;; i += 1) {
    p *= lambda / i;
    if (p <= kNegligibleTail * sum) break;
    sum += p * block_fpr(i);
  }
  p = p_mode;
  for (double i = mode; i > 0; i -= 1) {
    p *= i / lambda;  // now Poisson(i - 1)
    if (p <= kNegligibleTail * sum) break;
    sum += p * block_fpr(i - 1);
  }
  return sum;
}

void BlockedBloomFilter::add(const Hash128& h) {
  ops_->add(blocks_[reduce(h.h1, blocks_.size())], h.h2);
}

bool BlockedBloomFilter::contains(const Hash128& h) const {
  return ops_->contains(block_of(blocks_, h), h.h2);
}

std::error_code BlockedBloomFilter::contains_batch(std::span<const Hash128> hashes,
                                                   std::span<bool> out) const {
  if (out.size() != hashes.size()) return FilterErrc::size_mismatch;
  ops_->contains_batch(blocks_, hashes, out.data());
  return {};
}

std::error_code BlockedBloomFilter::contains_batch(std::span<const std::string_view> keys,
                                                   std::span<bool> out) const {
  if (out.size() != keys.size()) return FilterErrc::size_mismatch;
  std::array<Hash128, kHashChunk> hashes;
  for (std::size_t first = 0; first < keys.size(); first += kHashChunk) {
    const std::size_t count = std::min(kHashChunk, keys.size() - first);
    for (std::size_t i = 0; i < count; ++i) hashes[i] = hasher_(keys[first + i]);
    ops_->contains_batch(blocks_, std::span(hashes).first(count), out.data() + first);
  }
  return {};
}

std::uint64_t BlockedBloomFilter::count_set_bits() const {
  std::uint64_t total = 0;
  for (const SplitBlock& block : blocks_) {
    for (std::uint32_t word : block.words) total += static_cast<std::uint64_t>(std::popcount(word));
  }
  return total;
}

}  // namespace sumcache::filters
