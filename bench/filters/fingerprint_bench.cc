// Fingerprint summaries (docs/filters_fingerprint.md) at the load:
// n = 10^6 per peer, p = 0.24%, U = ceil(n / p).
// - FingerprintTable (the sender's): an eviction and an insert (remove + add),
//   rank(), and take_delta() after 1% of the set was replaced;
// - FingerprintDirectory (a receiver's): claims() for absent and present keys
//   and apply() of a 1% delta (10^4 removed ranks, 10^4 added), at 1, 16 and
//   64 peers of 10^6 each, with bytes per URL per peer.
// Keys are the 60-byte URLs of tests/support/url_keys.h, hashed beforehand (a
// miss is hashed once for the store and the peers).
// Run: build/release/bench/filters/fingerprint_bench; figures in
// docs/filters_fingerprint.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#include "filters/fingerprint_directory.h"
#include "filters/fingerprint_table.h"
#include "tests/support/url_keys.h"

namespace sumcache::bench {
namespace {

using filters::FingerprintDirectory;
using filters::FingerprintTable;
using filters::Hash128;
using filters::Hasher;

constexpr std::uint64_t kEntries = 1'000'000;
constexpr double kFpr = 0.0024;
constexpr std::uint64_t kDelta = kEntries / 100;            // 1%: Summary Cache's threshold
constexpr std::uint64_t kQueries = std::uint64_t{1} << 16;  // a power of two: wrap is a mask
constexpr std::uint64_t kAbsentBase = 1'000'000'000;

std::uint64_t universe() {
  static const std::uint64_t u = filters::fingerprint_universe(kEntries, kFpr).value();
  return u;
}

Hash128 hash_of(std::uint64_t key) { return Hasher{}(testing::url_key(key)); }

std::vector<std::uint64_t> sorted_fingerprints(std::uint64_t first, std::uint64_t count) {
  std::vector<std::uint64_t> fps(count);
  for (std::uint64_t i = 0; i < count; ++i)
    fps[i] = filters::fingerprint(hash_of(first + i), universe());
  std::sort(fps.begin(), fps.end());
  return fps;
}

void check(std::error_code e) {
  if (e) {
    std::fprintf(stderr, "benchmark setup: %s\n", e.message().c_str());
    std::abort();
  }
}

// ---- the sender's table ----

// Keys 0 .. 2n-1 hashed; the table holds n of them, a window moving by one
// per eviction + insert.
const std::vector<std::uint64_t>& ring() {
  static const std::vector<std::uint64_t> fps = [] {
    std::vector<std::uint64_t> all(2 * kEntries);
    for (std::uint64_t i = 0; i < all.size(); ++i)
      all[i] = filters::fingerprint(hash_of(i), universe());
    return all;
  }();
  return fps;
}

FingerprintTable filled_table() {
  FingerprintTable t = std::move(FingerprintTable::create(universe())).value();
  for (std::uint64_t i = 0; i < kEntries; ++i) t.add(ring()[i]);
  return t;
}

void report_table(benchmark::State& state, const FingerprintTable& t) {
  state.counters["bytes_per_url"] =
      static_cast<double>(t.memory_bytes()) / static_cast<double>(t.size());
}

void BM_table_remove_add(benchmark::State& state) {
  FingerprintTable t = filled_table();
  t.mark();
  const std::vector<std::uint64_t>& fps = ring();
  std::uint64_t i = 0;
  for (auto _ : state) {
    check(t.remove(fps[i]));
    t.add(fps[(i + kEntries) % fps.size()]);
    i = (i + 1) % fps.size();
    if (t.adds_since_mark() == kDelta) benchmark::DoNotOptimize(t.take_delta());
  }
  report_table(state, t);
}

void BM_table_rank(benchmark::State& state) {
  const FingerprintTable t = filled_table();
  std::vector<std::uint64_t> probes(kQueries);
  for (std::uint64_t q = 0; q < kQueries; ++q) probes[q] = (q * 0x9E3779B97F4A7C15ULL) % universe();
  std::uint64_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    sum += t.rank(probes[i]);
    i = (i + 1) & (kQueries - 1);
  }
  benchmark::DoNotOptimize(sum);
  report_table(state, t);
}

// take_delta() after 1% of the set was replaced (evictions + inserts).
void BM_table_take_delta(benchmark::State& state) {
  FingerprintTable t = filled_table();
  const std::vector<std::uint64_t>& fps = ring();
  std::uint64_t i = 0;
  std::uint64_t removed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    t.mark();
    for (std::uint64_t c = 0; c < kDelta; ++c, i = (i + 1) % fps.size()) {
      check(t.remove(fps[i]));
      t.add(fps[(i + kEntries) % fps.size()]);
    }
    state.ResumeTiming();
    removed += t.take_delta()->removed_ranks.size();
  }
  state.counters["removed_per_delta"] =
      static_cast<double>(removed) / static_cast<double>(state.iterations());
}

// ---- a receiver's directory ----

// Peer p holds the fingerprints of keys p n .. p n + n - 1.
FingerprintDirectory& directory_of(unsigned peers) {
  static std::map<unsigned, std::unique_ptr<FingerprintDirectory>> cache;
  auto& dir = cache[peers];
  if (!dir) {
    dir = std::make_unique<FingerprintDirectory>();
    for (unsigned p = 0; p < peers; ++p) {
      check(dir->set(p, universe(), sorted_fingerprints(p * kEntries, kEntries)));
    }
  }
  return *dir;
}

void report_directory(benchmark::State& state, const FingerprintDirectory& dir, unsigned peers) {
  state.counters["bytes_per_url_per_peer"] =
      static_cast<double>(dir.memory_bytes()) / static_cast<double>(peers * kEntries);
}

// Present queries spread over all peers: each is held by exactly one.
std::vector<Hash128> queries(unsigned peers, bool present) {
  std::vector<Hash128> hashes;
  for (std::uint64_t q = 0; q < kQueries; ++q) {
    const std::uint64_t id =
        present ? (q % peers) * kEntries + (q * 7919) % kEntries : kAbsentBase + q;
    hashes.push_back(hash_of(id));
  }
  return hashes;
}

void BM_directory_claims(benchmark::State& state, bool present) {
  const auto peers = static_cast<unsigned>(state.range(0));
  const FingerprintDirectory& dir = directory_of(peers);
  const std::vector<Hash128> hashes = queries(peers, present);
  std::uint64_t i = 0;
  std::uint64_t claimed = 0;
  for (auto _ : state) {
    claimed += static_cast<std::uint64_t>(__builtin_popcountll(dir.claims(hashes[i])));
    i = (i + 1) & (kQueries - 1);
  }
  benchmark::DoNotOptimize(claimed);
  state.counters["claims_per_lookup"] =
      static_cast<double>(claimed) / static_cast<double>(state.iterations());
  report_directory(state, dir, peers);
}

// One peer holding as many fingerprints as 64 peers of 10^6 (U = 64 n / p):
// the same table size as at 64 peers, so that the two show what the number
// of peers costs apart from the table outgrowing the caches.
void BM_directory_claims_one_large_peer(benchmark::State& state) {
  constexpr unsigned kScale = 64;
  static const std::unique_ptr<FingerprintDirectory> dir = [] {
    auto d = std::make_unique<FingerprintDirectory>();
    const std::uint64_t u = filters::fingerprint_universe(kScale * kEntries, kFpr).value();
    std::vector<std::uint64_t> fps(kScale * kEntries);
    for (std::uint64_t i = 0; i < fps.size(); ++i) fps[i] = filters::fingerprint(hash_of(i), u);
    std::sort(fps.begin(), fps.end());
    check(d->set(0, u, fps));
    return d;
  }();
  const std::vector<Hash128> hashes = queries(1, false);
  std::uint64_t i = 0;
  std::uint64_t claimed = 0;
  for (auto _ : state) {
    claimed += static_cast<std::uint64_t>(__builtin_popcountll(dir->claims(hashes[i])));
    i = (i + 1) & (kQueries - 1);
  }
  benchmark::DoNotOptimize(claimed);
  state.counters["bytes_per_url"] =
      static_cast<double>(dir->memory_bytes()) / static_cast<double>(kScale * kEntries);
}

// Ranks of `from`'s elements missing from `to`, and `to`'s elements not in `from`.
void diff(const std::vector<std::uint64_t>& from, const std::vector<std::uint64_t>& to,
          std::vector<std::uint64_t>& removed, std::vector<std::uint64_t>& added) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < from.size() || j < to.size()) {
    if (j == to.size() || (i < from.size() && from[i] < to[j])) {
      removed.push_back(i++);
    } else if (i == from.size() || to[j] < from[i]) {
      added.push_back(to[j++]);
    } else {
      ++i;
      ++j;
    }
  }
}

// Peer 0's set replaced by 1% (its first kDelta keys evicted, kDelta new
// ones stored), then back: each iteration applies one of the two deltas.
void BM_directory_apply(benchmark::State& state) {
  const auto peers = static_cast<unsigned>(state.range(0));
  FingerprintDirectory& dir = directory_of(peers);
  const std::vector<std::uint64_t> base = sorted_fingerprints(0, kEntries);
  std::vector<std::uint64_t> next = sorted_fingerprints(kDelta, kEntries - kDelta);
  const std::vector<std::uint64_t> fresh = sorted_fingerprints(100 * kEntries, kDelta);
  std::vector<std::uint64_t> merged;
  std::merge(next.begin(), next.end(), fresh.begin(), fresh.end(), std::back_inserter(merged));
  std::vector<std::uint64_t> removed[2];
  std::vector<std::uint64_t> added[2];
  diff(base, merged, removed[0], added[0]);
  diff(merged, base, removed[1], added[1]);
  std::uint64_t n = 0;
  for (auto _ : state) {
    check(dir.apply(0, removed[n % 2], added[n % 2]));
    ++n;
  }
  if (n % 2 == 1) check(dir.apply(0, removed[1], added[1]));
  state.counters["removed"] = static_cast<double>(removed[0].size());
  report_directory(state, dir, peers);
}

void peer_counts(benchmark::internal::Benchmark* b) {
  for (std::int64_t peers : {1, 16, 64}) b->Arg(peers);
  b->ArgName("peers");
}

BENCHMARK(BM_table_remove_add);
BENCHMARK(BM_table_rank);
BENCHMARK(BM_table_take_delta)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_directory_claims, absent, false)->Apply(peer_counts);
BENCHMARK_CAPTURE(BM_directory_claims, present, true)->Apply(peer_counts);
BENCHMARK(BM_directory_claims_one_large_peer);
BENCHMARK(BM_directory_apply)->Apply(peer_counts)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sumcache::bench
