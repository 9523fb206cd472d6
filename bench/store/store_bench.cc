// Store benchmarks: the index's heap bytes per object (mallinfo2 before and
// after), and insert/find in ns/op on the memory tier. 60-byte URL keys.
// Run: build/release/bench/store/store_bench
//
// BM_index_bytes_per_disk_object fills the index of 16 shards with 10^6 disk-only
// entries through IndexShard::add_disk_entry, the call Store::open makes for
// each valid file, without writing 10^6 files: it counts the index's own heap
// (entry chunks, tables), which is all a disk-only object costs in memory.
// BM_store_open_bytes_per_disk_object cross-checks through the real path: it writes
// 10^5 object files to a tmpfs directory, reopens the store, and counts
// everything the open store holds, minus the counting filter (fixed size).
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "daemon/store/index_shard.h"
#include "daemon/store/store.h"
#include "filters/hashing.h"
#include "tests/support/url_keys.h"

namespace sumcache::daemon {
namespace {

// Small blocks in use plus mmapped ones: glibc serves blocks from 128 KiB up
// (the index's slot tables) with mmap, which uordblks alone leaves out.
std::size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

std::vector<filters::Hash128> key_hashes(std::uint64_t n) {
  std::vector<filters::Hash128> hashes;
  hashes.reserve(n);
  const filters::Hasher hasher;
  for (std::uint64_t i = 0; i < n; ++i) hashes.push_back(hasher(testing::url_key(i)));
  return hashes;
}

void BM_index_bytes_per_disk_object(benchmark::State& state) {
  constexpr std::uint64_t kObjects = 1'000'000;
  constexpr std::uint32_t kShards = 16;
  const std::vector<filters::Hash128> hashes = key_hashes(kObjects);
  for (auto _ : state) {
    const std::size_t before = heap_in_use();
    auto shards = std::make_unique<IndexShard[]>(kShards);
    for (std::uint64_t i = 0; i < kObjects; ++i) {
      const filters::Hash128& h = hashes[i];
      shards[filters::reduce(h.h1, kShards)].add_disk_entry(h, 0, 4096 + i % 8192);
    }
    const std::size_t after = heap_in_use();
    std::size_t reported = 0;
    for (std::uint32_t s = 0; s < kShards; ++s) reported += shards[s].index_bytes();
    state.counters["heap_bytes_per_object"] = static_cast<double>(after - before) / kObjects;
    state.counters["index_bytes_per_object"] = static_cast<double>(reported) / kObjects;
    state.counters["sizeof_entry"] = static_cast<double>(sizeof(IndexEntry));
    benchmark::DoNotOptimize(shards.get());
  }
}
BENCHMARK(BM_index_bytes_per_disk_object)->Iterations(1)->Unit(benchmark::kMillisecond);

StoreOptions bench_options() {
  StoreOptions o;
  o.memory_max_bytes = std::uint64_t{4} << 30;
  o.shards = 16;
  o.filter_params = {std::uint64_t{1} << 20, 4};  // small: its fixed size is subtracted anyway
  return o;
}

void BM_store_open_bytes_per_disk_object(benchmark::State& state) {
  const auto objects = static_cast<std::uint64_t>(state.range(0));
  std::string dir = "/dev/shm/store_bench.XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) {
    state.SkipWithError("mkdtemp in /dev/shm failed");
    return;
  }
  StoreOptions options = bench_options();
  options.disk_enabled = true;
  options.disk_path = dir;
  {
    auto store = std::move(Store::open(options)).value();
    const auto body = std::make_shared<const std::string>(100, 'b');
    for (std::uint64_t i = 0; i < objects; ++i) {
      std::string key = testing::url_key(i);
      const filters::Hash128 h = store->hash_key(key);
      (void)store->insert({std::move(key), "", h, "meta", "HTTP/1.1 200 OK\r\n\r\n", body, 100});
      if (i % 4096 == 0) store->flush();  // keeps the write queue within its cap
    }
  }
  for (auto _ : state) {
    const std::size_t before = heap_in_use();
    auto store = std::move(Store::open(options)).value();
    const std::size_t after = heap_in_use();
    const std::size_t filter = (options.filter_params.m + 1) / 2;
    state.counters["bytes_per_object"] =
        static_cast<double>(after - before - filter) / static_cast<double>(objects);
    state.counters["objects"] = static_cast<double>(store->stats().objects);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}
BENCHMARK(BM_store_open_bytes_per_disk_object)
    ->Arg(100'000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// A memory store holding `n` objects of 1 KiB under distinct keys.
struct Filled {
  std::unique_ptr<Store> store;
  std::vector<std::string> keys;
  std::vector<filters::Hash128> hashes;
};

Filled& filled(std::uint64_t n) {
  static Filled f = [n] {
    Filled made{std::move(Store::open(bench_options())).value(), {}, {}};
    const auto body = std::make_shared<const std::string>(1024, 'b');
    for (std::uint64_t i = 0; i < n; ++i) {
      made.keys.push_back(testing::url_key(i));
      made.hashes.push_back(made.store->hash_key(made.keys.back()));
      (void)made.store->insert({made.keys.back(), "", made.hashes.back(), "meta",
                                "HTTP/1.1 200 OK\r\n\r\n", body, 1024});
    }
    return made;
  }();
  return f;
}

constexpr std::uint64_t kFilled = 1'000'000;

void BM_insert_replace(benchmark::State& state) {
  Filled& f = filled(kFilled);
  const auto body = std::make_shared<const std::string>(1024, 'c');
  std::uint64_t i = static_cast<std::uint64_t>(state.thread_index()) * 7919;
  for (auto _ : state) {
    const std::uint64_t k = i++ % kFilled;
    benchmark::DoNotOptimize(f.store->insert(
        {f.keys[k], "", f.hashes[k], "meta", "HTTP/1.1 200 OK\r\n\r\n", body, 1024}));
  }
}
BENCHMARK(BM_insert_replace)->Threads(1)->Threads(2);

void BM_find_hit(benchmark::State& state) {
  Filled& f = filled(kFilled);
  std::vector<ObjectPtr> out;
  out.reserve(4);
  std::uint64_t i = static_cast<std::uint64_t>(state.thread_index()) * 7919;
  for (auto _ : state) {
    const std::uint64_t k = (i++ * 104729) % kFilled;
    f.store->find(f.keys[k], f.hashes[k], out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_find_hit)->Threads(1)->Threads(2);

void BM_find_hit_hashing(benchmark::State& state) {
  Filled& f = filled(kFilled);
  std::uint64_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.store->find(f.keys[(i++ * 104729) % kFilled]));
  }
}
BENCHMARK(BM_find_hit_hashing);

void BM_find_miss(benchmark::State& state) {
  Filled& f = filled(kFilled);
  std::vector<ObjectPtr> out;
  static const std::vector<filters::Hash128> absent = key_hashes(2 * kFilled);
  std::uint64_t i = 0;
  for (auto _ : state) {
    const std::uint64_t k = kFilled + (i++ % kFilled);
    f.store->find("absent", absent[k], out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_find_miss);

}  // namespace
}  // namespace sumcache::daemon
