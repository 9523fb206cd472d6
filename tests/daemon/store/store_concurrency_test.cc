// Several threads inserting, finding, removing and refreshing at once (fixed
// seeds; the interleaving is the scheduler's): afterwards the filter still
// equals the filter of the index's keys and the tier figures add up.

#include <gtest/gtest.h>

#include <thread>

#include "daemon/store/store.h"
#include "tests/daemon/store/store_test_support.h"
#include "tests/daemon/store/store_workload.h"

namespace sumcache::daemon {
namespace {

using testing::disk_options;
using testing::expect_filter_matches_index;
using testing::memory_options;
using testing::open_store;
using testing::TempDir;
using testing::Workload;
using testing::WorkloadRunner;

void run_threads(Store& store, int threads, std::uint64_t ops_each, Workload w) {
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&store, t, ops_each, w] {
      WorkloadRunner runner(store, 1000 + static_cast<std::uint64_t>(t), w);
      runner.run(ops_each);
    });
  }
  for (std::thread& th : pool) th.join();
}

TEST(StoreConcurrency, ThreadsOnAMemoryStoreKeepTheInvariant) {
  auto store = open_store(memory_options(150'000, 8));
  // A small key space, so that threads collide on keys and shards.
  run_threads(*store, 4, 60'000, Workload{500, 3, 400});
  expect_filter_matches_index(*store);
  const StoreStats st = store->stats();
  EXPECT_LE(st.memory_bytes, 150'000U);
  EXPECT_EQ(st.memory_objects, st.objects);
}

TEST(StoreConcurrency, ThreadsOnADiskStoreKeepTheInvariantAndSurviveARestart) {
  TempDir dir;
  const StoreOptions options = disk_options(dir.path(), 40'000, 300'000, 4);
  std::uint64_t on_disk = 0;
  {
    auto store = open_store(options);
    run_threads(*store, 3, 4'000, Workload{300, 2, 400});
    store->flush();
    expect_filter_matches_index(*store);
    const StoreStats st = store->stats();
    EXPECT_EQ(st.disk_write_errors, 0U);
    EXPECT_EQ(st.damaged_files_removed, 0U);
    on_disk = st.disk_objects;
  }
  auto store = open_store(options);
  EXPECT_EQ(store->stats().objects, on_disk);
  expect_filter_matches_index(*store);
}

}  // namespace
}  // namespace sumcache::daemon
