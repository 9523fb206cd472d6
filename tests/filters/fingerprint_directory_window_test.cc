// FingerprintDirectory's lookup window (docs/filters_fingerprint.md, Lookup):
// a lookup compares a fixed window of entries around its interpolated guess
// and searches the whole bucket only when the window cannot settle it. Every
// fingerprint of a few buckets, each shaped to stress one edge (a bucket's
// first and last entries, the table's last entries beside the padding, a
// crowded bucket whose entries sit far from the guess), is checked against
// per-slot std::multisets.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "filters/fingerprint_directory.h"

namespace sumcache::filters {
namespace {

using Fps = std::vector<std::uint64_t>;

constexpr std::uint64_t kBucket = std::uint64_t{1} << 16;  // fingerprints per bucket at 1 peer

// A hash whose fingerprint in `universe` is f: h1 = ceil(f 2^64 / U) maps to f.
Hash128 hash_of(std::uint64_t f, std::uint64_t universe) {
  __extension__ using U128 = unsigned __int128;
  const U128 h1 = ((static_cast<U128>(f) << 64) + universe - 1) / universe;
  return {static_cast<std::uint64_t>(h1), 0};
}

// Claims of every fingerprint in [0, universe) against the sets given.
void expect_exact(const FingerprintDirectory& dir, std::uint64_t universe,
                  const std::vector<Fps>& sets) {
  std::vector<std::multiset<std::uint64_t>> model;
  for (const Fps& s : sets) model.emplace_back(s.begin(), s.end());
  for (std::uint64_t f = 0; f < universe; ++f) {
    std::uint64_t expected = 0;
    for (std::size_t slot = 0; slot < model.size(); ++slot) {
      if (model[slot].contains(f)) expected |= std::uint64_t{1} << slot;
    }
    ASSERT_EQ(dir.claims(hash_of(f, universe)), expected) << "fingerprint " << f;
  }
}

// Four buckets at one peer: bucket 0 sparse (its first entry at 0), bucket 1
// uniformly dense with repeats, bucket 2 crowded into its first 64 values
// (every guess past them lands far from the entries: the fallback), bucket 3
// the table's last, dense up to its last fingerprint (the window reads the
// padding).
Fps shaped(std::uint64_t offset) {
  Fps s{0, 17, kBucket - 1};
  for (std::uint64_t i = 0; i < 400; ++i) s.push_back(kBucket + i * 163 % kBucket);
  s.push_back(kBucket + 5);
  s.push_back(kBucket + 5);
  for (std::uint64_t i = 0; i < 3000; ++i) s.push_back(2 * kBucket + (i * 7 + offset) % 64);
  for (std::uint64_t i = 0; i < 200; ++i) s.push_back(4 * kBucket - 1 - i * (i + offset) % 997);
  s.push_back(3 * kBucket);
  s.push_back(4 * kBucket - 1);
  std::sort(s.begin(), s.end());
  return s;
}

TEST(FingerprintDirectoryWindow, EveryFingerprintOfShapedBucketsAtOnePeer) {
  const std::uint64_t u = 4 * kBucket;
  FingerprintDirectory dir;
  const Fps set = shaped(0);
  ASSERT_FALSE(dir.set(0, u, set));
  expect_exact(dir, u, {set});
}

// Three peers share the table (2 peer bits): a bucket covers 2^14
// fingerprints of each, and a fingerprint's entries are up to 4 in a row.
TEST(FingerprintDirectoryWindow, EveryFingerprintOfShapedBucketsAtThreePeers) {
  const std::uint64_t u = 4 * kBucket;
  FingerprintDirectory dir;
  const std::vector<Fps> sets{shaped(0), shaped(1), Fps{0, 2 * kBucket + 3, 4 * kBucket - 1}};
  for (unsigned slot = 0; slot < sets.size(); ++slot) ASSERT_FALSE(dir.set(slot, u, sets[slot]));
  expect_exact(dir, u, sets);
}

// One fingerprint held 5,000 times and its successor once: the successor's
// guess lands among the copies, 2,500 entries before it, so only the
// fallback finds it; slot 7 alone (no peer bits).
TEST(FingerprintDirectoryWindow, ABucketCrowdedByOneRepeatedFingerprint) {
  const std::uint64_t u = 2 * kBucket;
  FingerprintDirectory dir;
  Fps set(5000, kBucket + kBucket / 2);
  set.push_back(kBucket + kBucket / 2 + 1);
  ASSERT_FALSE(dir.set(7, u, set));
  std::vector<Fps> sets(8);
  sets[7] = set;
  expect_exact(dir, u, sets);
}

}  // namespace
}  // namespace sumcache::filters
