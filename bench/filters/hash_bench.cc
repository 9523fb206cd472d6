// Hashing one 60-byte URL key: the candidates for the filters' one hash per key.
#include <benchmark/benchmark.h>
#include <xxhash.h>

#include <functional>

#include "bench/filters/key_set.h"
#include "bench/filters/murmur3.h"
#include "filters/hashing.h"

namespace sumcache::bench {
namespace {

template <class Hash>
void hash_loop(benchmark::State& state, Hash hash) {
  const KeySet& keys = absent_keys();
  const std::uint64_t mask = kQueryKeys - 1;
  std::uint64_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(hash(keys.at(i)));
    i = (i + 1) & mask;
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 60);
}

void BM_hash_xxh3_128(benchmark::State& state) {
  hash_loop(state, [](std::string_view k) { return filters::xxh3_128(k, 0); });
}
void BM_hash_murmur3_x64_128(benchmark::State& state) {
  hash_loop(state, [](std::string_view k) { return murmur3_x64_128(k, 0); });
}
void BM_hash_md5(benchmark::State& state) {
  hash_loop(state, [](std::string_view k) { return filters::md5_128(k); });
}
void BM_hash_xxh3_64(benchmark::State& state) {
  hash_loop(state, [](std::string_view k) { return XXH3_64bits(k.data(), k.size()); });
}
void BM_hash_std_hash(benchmark::State& state) {
  hash_loop(state, [](std::string_view k) { return std::hash<std::string_view>{}(k); });
}

BENCHMARK(BM_hash_xxh3_128);
BENCHMARK(BM_hash_murmur3_x64_128);
BENCHMARK(BM_hash_md5);
BENCHMARK(BM_hash_xxh3_64);
BENCHMARK(BM_hash_std_hash);

}  // namespace
}  // namespace sumcache::bench
