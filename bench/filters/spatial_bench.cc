// The spatial Bloom filter as a one-probe directory: "which is the best
// (highest-priority) peer that holds this key?", against the bit-sliced
// SummaryDirectory answering the same question (its claims, highest slot).
// Peers and keys as in directory_bench.cc: 1, 8 and 64 peers of n = 10^5
// keys each, disjoint, summaries of 16 bits per entry, k = 4; peer p is set
// p + 1 (a higher slot is a better peer). Spatial filters:
// - from_summaries: m and k of one peer's summary, so that its cells are the
//   highest peer whose summary has the bit (what a node could build from the
//   summaries it receives; tests/filters/spatial_bloom_filter_test.cc);
// - union16: 16 cells per key of the union, k = 4 (built from the keys);
// - equal_bytes: as many one-byte cells as the directory has bytes, k optimal
//   for that load, at most 8 (built from the keys).
// Keys hashed beforehand. Counters: bytes, and `wrong`, the share of 2^18
// queries whose answer is not the true best holder (0 for an absent key),
// computed before timing. Then the plain query against BloomFilter::contains
// at the same m and k (n = 10^6 over 8 sets, p = 1%), and that filter's
// per-set formulas beside its measured rates (BM_formulas).
// Run: build/release/bench/filters/spatial_bench; table in docs/filters_spatial.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "filters/spatial_bloom_filter.h"
#include "filters/summary_directory.h"
#include "tests/support/url_keys.h"

namespace sumcache::bench {
namespace {

using filters::BloomFilter;
using filters::BloomParams;
using filters::Hash128;
using filters::Hasher;
using filters::SpatialBloomFilter;
using filters::SummaryDirectory;

constexpr std::uint64_t kEntries = 100'000;
constexpr unsigned kMostPeers = 64;
constexpr std::uint64_t kQueries = std::uint64_t{1} << 16;      // timed, cycled (a mask wraps)
constexpr std::uint64_t kRateQueries = std::uint64_t{1} << 18;  // for the wrong-answer share
constexpr std::uint64_t kAbsentBase = 1'000'000'000;
constexpr std::uint32_t kMaxEqualBytesHashes = 8;

enum class Layout { directory, from_summaries, union16, equal_bytes };

template <class T>
T checked(Result<T> r) {
  if (!r) {
    std::fprintf(stderr, "benchmark setup: %s\n", r.error().message().c_str());
    std::abort();
  }
  return std::move(r).value();
}

// Peer p holds keys p * kEntries .. p * kEntries + kEntries - 1.
const std::vector<Hash128>& peer_hashes() {
  static const std::vector<Hash128> hashes = [] {
    std::vector<Hash128> all;
    all.reserve(kMostPeers * kEntries);
    for (std::uint64_t i = 0; i < kMostPeers * kEntries; ++i) {
      all.push_back(Hasher{}(testing::url_key(i)));
    }
    return all;
  }();
  return hashes;
}

BloomParams summary_params() { return checked(filters::params_for_load(kEntries, 16, 4)); }

const SummaryDirectory& directory_of(unsigned peers) {
  static std::unique_ptr<SummaryDirectory> cache[kMostPeers + 1];
  auto& dir = cache[peers];
  if (!dir) {
    dir = std::make_unique<SummaryDirectory>();
    for (unsigned p = 0; p < peers; ++p) {
      BloomFilter summary = checked(BloomFilter::create(summary_params()));
      for (std::uint64_t i = 0; i < kEntries; ++i) summary.add(peer_hashes()[p * kEntries + i]);
      if (dir->set(p, summary)) std::abort();
    }
  }
  return *dir;
}

BloomParams spatial_params(Layout layout, unsigned peers) {
  const std::uint64_t keys = std::uint64_t{peers} * kEntries;
  switch (layout) {
    case Layout::from_summaries:
      return summary_params();
    case Layout::union16:
      return {keys * 16, 4};
    case Layout::equal_bytes: {
      const double cells_per_key =
          static_cast<double>(directory_of(peers).memory_bytes()) / static_cast<double>(keys);
      BloomParams params = checked(filters::params_for_load(keys, cells_per_key));
      params.k = std::min(params.k, kMaxEqualBytesHashes);
      return params;
    }
    case Layout::directory:
      break;
  }
  std::abort();
}

const SpatialBloomFilter& spatial_of(Layout layout, unsigned peers) {
  static std::map<std::pair<Layout, unsigned>, std::unique_ptr<SpatialBloomFilter>> cache;
  auto& filter = cache[{layout, peers}];
  if (!filter) {
    filter = std::make_unique<SpatialBloomFilter>(
        checked(SpatialBloomFilter::create(spatial_params(layout, peers), peers)));
    for (unsigned p = 0; p < peers; ++p) {
      for (std::uint64_t i = 0; i < kEntries; ++i) {
        if (filter->insert(peer_hashes()[p * kEntries + i], p + 1)) std::abort();
      }
    }
  }
  return *filter;
}

// Present queries spread over all peers, each key held by exactly one; the
// truth is that peer's set, p + 1. An absent key's truth is 0.
struct Query {
  Hash128 hash;
  std::uint32_t truth;
};

std::vector<Query> queries(unsigned peers, bool present, std::uint64_t count) {
  std::vector<Query> all;
  all.reserve(count);
  for (std::uint64_t q = 0; q < count; ++q) {
    if (present) {
      const std::uint64_t peer = q % peers;
      all.push_back({peer_hashes()[peer * kEntries + (q * 7919) % kEntries],
                     static_cast<std::uint32_t>(peer + 1)});
    } else {
      all.push_back({Hasher{}(testing::url_key(kAbsentBase + q)), 0});
    }
  }
  return all;
}

// The best claiming slot, as a set index: highest claiming slot + 1, 0 for none.
std::uint32_t best_of(std::uint64_t claims) {
  return claims == 0 ? 0 : static_cast<std::uint32_t>(64 - __builtin_clzll(claims));
}

template <class Answer>
void best_loop(benchmark::State& state, unsigned peers, bool present, Answer answer) {
  std::uint64_t wrong = 0;
  for (const Query& q : queries(peers, present, kRateQueries)) wrong += answer(q.hash) != q.truth;
  const std::vector<Query> timed = queries(peers, present, kQueries);
  std::uint64_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    sum += answer(timed[i].hash);
    i = (i + 1) & (kQueries - 1);
  }
  benchmark::DoNotOptimize(sum);
  state.counters["wrong"] = static_cast<double>(wrong) / static_cast<double>(kRateQueries);
}

void BM_best(benchmark::State& state, Layout layout, bool present) {
  const auto peers = static_cast<unsigned>(state.range(0));
  if (layout == Layout::directory) {
    const SummaryDirectory& dir = directory_of(peers);
    best_loop(state, peers, present, [&](const Hash128& h) { return best_of(dir.claims(h)); });
    state.counters["bytes"] = static_cast<double>(dir.memory_bytes());
    return;
  }
  const SpatialBloomFilter& filter = spatial_of(layout, peers);
  best_loop(state, peers, present, [&](const Hash128& h) { return filter.query(h); });
  state.counters["bytes"] = static_cast<double>(filter.memory_bytes());
  state.counters["k"] = filter.params().k;
}

void peer_counts(benchmark::internal::Benchmark* b) {
  for (std::int64_t peers : {1, 8, 64}) b->Arg(peers);
  b->ArgName("peers");
}

BENCHMARK_CAPTURE(BM_best, directory_absent, Layout::directory, false)->Apply(peer_counts);
BENCHMARK_CAPTURE(BM_best, directory_present, Layout::directory, true)->Apply(peer_counts);
BENCHMARK_CAPTURE(BM_best, from_summaries_absent, Layout::from_summaries, false)
    ->Apply(peer_counts);
BENCHMARK_CAPTURE(BM_best, from_summaries_present, Layout::from_summaries, true)
    ->Apply(peer_counts);
BENCHMARK_CAPTURE(BM_best, union16_absent, Layout::union16, false)->Apply(peer_counts);
BENCHMARK_CAPTURE(BM_best, union16_present, Layout::union16, true)->Apply(peer_counts);
BENCHMARK_CAPTURE(BM_best, equal_bytes_absent, Layout::equal_bytes, false)->Apply(peer_counts);
BENCHMARK_CAPTURE(BM_best, equal_bytes_present, Layout::equal_bytes, true)->Apply(peer_counts);

// The query alone against a plain Bloom filter of the same m and k: one byte
// per cell instead of one bit, the same probes.
constexpr std::uint64_t kPlainKeys = 1'000'000;
constexpr std::uint32_t kPlainSets = 8;

const std::vector<Hash128>& plain_hashes() {
  static const std::vector<Hash128> hashes = [] {
    std::vector<Hash128> all;
    all.reserve(kPlainKeys);
    for (std::uint64_t i = 0; i < kPlainKeys; ++i) all.push_back(Hasher{}(testing::url_key(i)));
    return all;
  }();
  return hashes;
}

template <class Lookup>
void plain_loop(benchmark::State& state, bool present, Lookup lookup) {
  std::vector<Hash128> timed;
  for (std::uint64_t q = 0; q < kQueries; ++q) {
    timed.push_back(present ? plain_hashes()[(q * 7919) % kPlainKeys]
                            : Hasher{}(testing::url_key(kAbsentBase + q)));
  }
  std::uint64_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    sum += lookup(timed[i]);
    i = (i + 1) & (kQueries - 1);
  }
  benchmark::DoNotOptimize(sum);
}

const SpatialBloomFilter& plain_spatial() {
  static const SpatialBloomFilter filter = [] {
    SpatialBloomFilter f = checked(SpatialBloomFilter::for_capacity(kPlainKeys, 0.01, kPlainSets));
    for (std::uint64_t i = 0; i < kPlainKeys; ++i) {
      if (f.insert(plain_hashes()[i], 1 + static_cast<std::uint32_t>(i * kPlainSets / kPlainKeys)))
        std::abort();
    }
    return f;
  }();
  return filter;
}

void BM_query_spatial(benchmark::State& state, bool present) {
  const SpatialBloomFilter& filter = plain_spatial();
  plain_loop(state, present, [&](const Hash128& h) { return filter.query(h); });
  state.counters["bytes"] = static_cast<double>(filter.memory_bytes());
}

void BM_query_bloom(benchmark::State& state, bool present) {
  static const BloomFilter filter = [] {
    BloomFilter f = checked(BloomFilter::for_capacity(kPlainKeys, 0.01));
    for (std::uint64_t i = 0; i < kPlainKeys; ++i) f.add(plain_hashes()[i]);
    return f;
  }();
  plain_loop(state, present, [&](const Hash128& h) { return filter.contains(h) ? 1u : 0u; });
  state.counters["bytes"] = static_cast<double>(filter.memory_bytes());
}

// Not a timing: the per-set formulas beside what the same filter measures
// (2^20 absent keys; emersion from the cells), as counters of one iteration.
void BM_formulas(benchmark::State& state) {
  const SpatialBloomFilter& filter = plain_spatial();
  constexpr std::uint64_t kAbsent = std::uint64_t{1} << 20;
  std::vector<std::uint64_t> reported(kPlainSets + 1, 0);
  for (auto _ : state) {
    for (std::uint64_t q = 0; q < kAbsent; ++q) {
      ++reported[filter.query(Hasher{}(testing::url_key(kAbsentBase + q)))];
    }
  }
  for (std::uint32_t set = 1; set <= kPlainSets; ++set) {
    const std::string i = std::to_string(set);
    state.counters["fpr" + i] = static_cast<double>(reported[set]) / static_cast<double>(kAbsent);
    state.counters["fpr" + i + "_formula"] = filter.expected_fpr(set);
    state.counters["emersion" + i] = filter.emersion(set).value_or(-1);
    state.counters["emersion" + i + "_formula"] = filter.expected_emersion(set);
  }
}
BENCHMARK(BM_formulas)->Iterations(1);

BENCHMARK_CAPTURE(BM_query_spatial, absent, false);
BENCHMARK_CAPTURE(BM_query_spatial, present, true);
BENCHMARK_CAPTURE(BM_query_bloom, absent, false);
BENCHMARK_CAPTURE(BM_query_bloom, present, true);

}  // namespace
}  // namespace sumcache::bench
