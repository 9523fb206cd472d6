// Which peers claim a key: SummaryDirectory::claims() against the plain
// alternative, a loop over one BloomFilter per peer. 1, 8 and 64 peers of
// n = 10^5 entries each, 16 bits per entry, k = 4 (the daemon's parameters),
// keys hashed beforehand (a miss is hashed once for the store and the peers).
// Run: build/release/bench/filters/directory_bench; table in docs/filters.md.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "filters/summary_directory.h"
#include "tests/support/url_keys.h"

namespace sumcache::bench {
namespace {

using filters::BloomFilter;
using filters::Hash128;
using filters::Hasher;
using filters::SummaryDirectory;

constexpr std::uint64_t kEntries = 100'000;
constexpr unsigned kMostPeers = 64;
constexpr std::uint64_t kQueries = std::uint64_t{1} << 16;  // a power of two: wrap is a mask
constexpr std::uint64_t kAbsentBase = 1'000'000'000;

template <class T>
T checked(Result<T> r) {
  if (!r) {
    std::fprintf(stderr, "benchmark setup: %s\n", r.error().message().c_str());
    std::abort();
  }
  return std::move(r).value();
}

// Peer p's summary holds keys p * kEntries .. p * kEntries + kEntries - 1.
const std::vector<BloomFilter>& summaries() {
  static const std::vector<BloomFilter> filters = [] {
    const auto params = checked(filters::params_for_load(kEntries, 16, 4));
    std::vector<BloomFilter> all;
    for (unsigned p = 0; p < kMostPeers; ++p) {
      all.push_back(checked(BloomFilter::create(params)));
      for (std::uint64_t i = 0; i < kEntries; ++i)
        all.back().add(testing::url_key(p * kEntries + i));
    }
    return all;
  }();
  return filters;
}

const SummaryDirectory& directory_of(unsigned peers) {
  static std::unique_ptr<SummaryDirectory> cache[kMostPeers + 1];
  auto& dir = cache[peers];
  if (!dir) {
    dir = std::make_unique<SummaryDirectory>();
    for (unsigned p = 0; p < peers; ++p) {
      if (dir->set(p, summaries()[p])) std::abort();
    }
  }
  return *dir;
}

// Present queries spread over all peers: each is in exactly one summary.
std::vector<Hash128> queries(unsigned peers, bool present) {
  std::vector<Hash128> hashes;
  for (std::uint64_t q = 0; q < kQueries; ++q) {
    const std::uint64_t id =
        present ? (q % peers) * kEntries + (q * 7919) % kEntries : kAbsentBase + q;
    hashes.push_back(Hasher{}(testing::url_key(id)));
  }
  return hashes;
}

template <class Lookup>
void claims_loop(benchmark::State& state, const std::vector<Hash128>& hashes, Lookup lookup) {
  std::uint64_t i = 0;
  std::uint64_t claimed = 0;
  for (auto _ : state) {
    claimed += static_cast<std::uint64_t>(__builtin_popcountll(lookup(hashes[i])));
    i = (i + 1) & (kQueries - 1);
  }
  benchmark::DoNotOptimize(claimed);
  state.counters["claims_per_lookup"] =
      static_cast<double>(claimed) / static_cast<double>(state.iterations());
}

void BM_directory(benchmark::State& state, bool present) {
  const auto peers = static_cast<unsigned>(state.range(0));
  const SummaryDirectory& dir = directory_of(peers);
  claims_loop(state, queries(peers, present), [&](const Hash128& h) { return dir.claims(h); });
  state.counters["bytes"] = static_cast<double>(dir.memory_bytes());
}

void BM_bloom_loop(benchmark::State& state, bool present) {
  const auto peers = static_cast<unsigned>(state.range(0));
  const std::vector<BloomFilter>& filters = summaries();
  claims_loop(state, queries(peers, present), [&](const Hash128& h) {
    std::uint64_t claimed = 0;
    for (unsigned p = 0; p < peers; ++p) {
      claimed |= static_cast<std::uint64_t>(filters[p].contains(h)) << p;
    }
    return claimed;
  });
  state.counters["bytes"] = static_cast<double>(peers * filters[0].memory_bytes());
}

void peer_counts(benchmark::internal::Benchmark* b) {
  for (std::int64_t peers : {1, 8, 64}) b->Arg(peers);
  b->ArgName("peers");
}

BENCHMARK_CAPTURE(BM_directory, absent, false)->Apply(peer_counts);
BENCHMARK_CAPTURE(BM_directory, present, true)->Apply(peer_counts);
BENCHMARK_CAPTURE(BM_bloom_loop, absent, false)->Apply(peer_counts);
BENCHMARK_CAPTURE(BM_bloom_loop, present, true)->Apply(peer_counts);

}  // namespace
}  // namespace sumcache::bench
