// Filter micro-benchmarks: add, contains (present), contains (absent) and
// remove in ns/op for every filter of ours and for libbloom, at n = 10^6 and
// 10^7 and p = 1% and 0.1%, on 60-byte URL keys, hashing included.
// Run: build/release/bench/filters/filters_bench; ratios: bench/filters/report.py.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "bench/filters/filter_adapters.h"
#include "bench/filters/key_set.h"

namespace sumcache::bench {

const KeySet& present_keys(std::uint64_t n) {
  static std::map<std::uint64_t, std::unique_ptr<KeySet>> cache;
  auto& slot = cache[n];
  if (!slot) slot = std::make_unique<KeySet>(0, n);
  return *slot;
}

const KeySet& absent_keys() {
  static const KeySet keys(kAbsentBase, kQueryKeys);
  return keys;
}

namespace {

std::uint64_t n_of(const benchmark::State& state) { return static_cast<std::uint64_t>(state.range(0)); }
double p_of(const benchmark::State& state) { return static_cast<double>(state.range(1)) / 1e6; }

// One filled filter per (type, n, p), shared by the contains benchmarks.
template <class F>
F& filled(std::uint64_t n, double p) {
  static std::map<std::pair<std::uint64_t, double>, std::unique_ptr<F>> cache;
  auto& slot = cache[{n, p}];
  if (!slot) {
    slot = std::make_unique<F>(n, p);
    const KeySet& keys = present_keys(n);
    for (std::uint64_t i = 0; i < n; ++i) slot->add(keys.at(i));
  }
  return *slot;
}

template <class F>
void report_memory(benchmark::State& state, const F& filter, std::uint64_t n) {
  state.counters["bytes_per_key"] =
      static_cast<double>(filter.memory_bytes()) / static_cast<double>(n);
}

template <class F>
void BM_add(benchmark::State& state) {
  const std::uint64_t n = n_of(state);
  const KeySet& keys = present_keys(n);
  F filter(n, p_of(state));
  std::uint64_t i = 0;
  for (auto _ : state) {
    filter.add(keys.at(i));
    if (++i == n) i = 0;
  }
  report_memory(state, filter, n);
}

// Returns how many queries answered "present".
template <class F>
std::uint64_t contains_loop(benchmark::State& state, F& filter, const KeySet& keys,
                            std::uint64_t count) {
  const std::uint64_t mask = kQueryKeys - 1;
  std::uint64_t i = 0;
  std::uint64_t hits = 0;
  for (auto _ : state) {
    hits += filter.contains(keys.at(i % count)) ? 1 : 0;
    i = (i + 1) & mask;
  }
  benchmark::DoNotOptimize(hits);
  return hits;
}

template <class F>
void BM_contains_present(benchmark::State& state) {
  const std::uint64_t n = n_of(state);
  F& filter = filled<F>(n, p_of(state));
  contains_loop(state, filter, present_keys(n), std::min(n, kQueryKeys));
  report_memory(state, filter, n);
}

template <class F>
void BM_contains_absent(benchmark::State& state) {
  const std::uint64_t n = n_of(state);
  F& filter = filled<F>(n, p_of(state));
  const std::uint64_t hits = contains_loop(state, filter, absent_keys(), kQueryKeys);
  report_memory(state, filter, n);
  // The measured false positive rate, over the absent keys queried.
  state.counters["fpr"] =
      static_cast<double>(hits) /
      static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
}

// Removes held keys in order; every kBatch removes puts them back (untimed), so
// the filter holds n - kBatch to n keys throughout.
template <class F>
void BM_remove(benchmark::State& state) {
  constexpr std::uint64_t kBatch = 4096;
  const std::uint64_t n = n_of(state);
  F& filter = filled<F>(n, p_of(state));
  const KeySet& keys = present_keys(n);
  std::uint64_t next = 0;
  std::uint64_t removed = 0;
  const auto put_back = [&] {
    for (std::uint64_t j = next - removed; j < next; ++j) filter.add(keys.at(j));
    removed = 0;
    if (next == n) next = 0;
  };
  std::uint64_t refused = 0;
  for (auto _ : state) {
    refused += filter.remove(keys.at(next)) ? 1 : 0;
    ++next;
    if (++removed == kBatch || next == n) {
      state.PauseTiming();
      put_back();
      state.ResumeTiming();
    }
  }
  put_back();
  if (refused != 0) state.SkipWithError("a held key's remove was refused");
  report_memory(state, filter, n);
}

void sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {1'000'000, 10'000'000}) {
    for (std::int64_t ppm : {10'000, 1'000}) b->Args({n, ppm});
  }
  b->ArgNames({"n", "p_ppm"});
}

#define SUMCACHE_FILTER_BENCHES(F)                              \
  BENCHMARK_TEMPLATE(BM_add, F)->Apply(sizes);                  \
  BENCHMARK_TEMPLATE(BM_contains_present, F)->Apply(sizes);     \
  BENCHMARK_TEMPLATE(BM_contains_absent, F)->Apply(sizes)

// The Summary Cache pattern: an insert and an eviction, the key hashed once
// (the store keeps the hash, so the eviction does not hash again).
template <class Filter>
void pair_loop(benchmark::State& state, Filter& filter, std::uint64_t n) {
  const KeySet& keys = absent_keys();
  std::uint64_t i = 0;
  for (auto _ : state) {
    const filters::Hash128 h = filter.hasher()(keys.at(i));
    (void)filter.add(h);  // void for the counting filter; the d-left one cannot refuse at n
    benchmark::DoNotOptimize(filter.remove(h));
    i = (i + 1) & (kQueryKeys - 1);
  }
  state.counters["bytes_per_key"] =
      static_cast<double>(filter.memory_bytes()) / static_cast<double>(n);
}

template <class F>
void BM_add_remove_pair(benchmark::State& state) {
  const std::uint64_t n = n_of(state);
  pair_loop(state, filled<F>(n, p_of(state)).f, n);
}

// At the daemon's own parameters (config filter: 16 bits per entry, k = 4, as
// Summary Cache), whatever p says: the filter a node actually updates.
void BM_add_remove_pair_summary(benchmark::State& state) {
  const std::uint64_t n = n_of(state);
  auto filter = checked(filters::CountingBloomFilter::create(
      checked(filters::params_for_load(n, 16, 4))));
  const KeySet& present = present_keys(n);
  for (std::uint64_t i = 0; i < n; ++i) filter.add(present.at(i));
  pair_loop(state, filter, n);
}

// The same with the change log recording (a summary publisher has marked).
void BM_add_remove_pair_logged(benchmark::State& state) {
  const std::uint64_t n = n_of(state);
  CountingAdapter filter(n, p_of(state));
  const KeySet& present = present_keys(n);
  for (std::uint64_t i = 0; i < n; ++i) filter.add(present.at(i));
  filter.f.mark();
  pair_loop(state, filter.f, n);
}

// libbloom adding keys it does not hold to a filter holding n, as the pair
// does: the pair's fair reference. BM_add<LibBloom> cycles through its own n
// keys, so after the first pass it re-adds keys whose bits are all set: it
// stores nothing and its branch on each bit is always predicted. The filter
// goes back to its n keys every kNewKeysPerRefill adds (untimed), so that the
// load drifts by less than 2%.
void BM_add_new_libbloom(benchmark::State& state) {
  constexpr std::uint64_t kNewKeysPerRefill = std::uint64_t{1} << 14;
  const std::uint64_t n = n_of(state);
  LibBloom filter(n, p_of(state));
  const KeySet& present = present_keys(n);
  for (std::uint64_t i = 0; i < n; ++i) filter.add(present.at(i));
  const std::vector<unsigned char> at_n = filter.save_bits();
  const KeySet& keys = absent_keys();
  std::uint64_t i = 0;
  for (auto _ : state) {
    filter.add(keys.at(i));
    i = (i + 1) & (kQueryKeys - 1);
    if ((i & (kNewKeysPerRefill - 1)) == 0) {
      state.PauseTiming();
      filter.restore_bits(at_n);
      state.ResumeTiming();
    }
  }
  report_memory(state, filter, n);
}

// Many keys per call, hashed and prefetched in the batch (keys_per_iteration
// tells report.py to divide).
void BM_contains_batch_absent(benchmark::State& state) {
  constexpr std::size_t kBatch = 256;
  const std::uint64_t n = n_of(state);
  BlockedAdapter& filter = filled<BlockedAdapter>(n, p_of(state));
  const KeySet& keys = absent_keys();
  std::vector<std::string_view> batch(kBatch);
  auto out = std::make_unique<bool[]>(kBatch);
  const std::span<bool> results(out.get(), kBatch);
  std::uint64_t next = 0;
  for (auto _ : state) {
    for (auto& k : batch) {
      k = keys.at(next);
      next = (next + 1) & (kQueryKeys - 1);
    }
    benchmark::DoNotOptimize(filter.f.contains_batch(batch, results));
  }
  report_memory(state, filter, n);
  state.counters["keys_per_iteration"] = kBatch;
}

SUMCACHE_FILTER_BENCHES(LibBloomAdapter);
SUMCACHE_FILTER_BENCHES(BloomAdapter);
SUMCACHE_FILTER_BENCHES(CountingAdapter);
SUMCACHE_FILTER_BENCHES(BlockedAdapter);
SUMCACHE_FILTER_BENCHES(ScalableAdapter);
BENCHMARK_TEMPLATE(BM_remove, CountingAdapter)->Apply(sizes);
// The d-left counting filter beside the counting filter it replaces.
SUMCACHE_FILTER_BENCHES(DleftAdapter);
BENCHMARK_TEMPLATE(BM_remove, DleftAdapter)->Apply(sizes);
BENCHMARK(BM_add_remove_pair<CountingAdapter>)->Name("BM_add_remove_pair<Counting>")->Apply(sizes);
BENCHMARK(BM_add_remove_pair<DleftAdapter>)->Name("BM_add_remove_pair<Dleft>")->Apply(sizes);
BENCHMARK(BM_add_remove_pair_summary)->Name("BM_add_remove_pair<Counting16bitsK4>")->Apply(sizes);
BENCHMARK(BM_add_remove_pair_logged)->Name("BM_add_remove_pair<CountingLogged>")->Apply(sizes);
BENCHMARK(BM_add_new_libbloom)->Name("BM_add_new<LibBloom>")->Apply(sizes);
BENCHMARK(BM_contains_batch_absent)->Name("BM_contains_absent<BlockedBatch256>")->Apply(sizes);

}  // namespace
}  // namespace sumcache::bench
