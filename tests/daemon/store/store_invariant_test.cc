// THE INVARIANT: after any sequence of operations, the counting filter is
// exactly the filter of the distinct primary keys in the index, counter for
// counter, and its bit view is the plain Bloom filter of those keys.
// Millions of seeded random operations, mostly on memory-only stores (fast),
// some on a disk-backed one.

#include <gtest/gtest.h>

#include <ostream>

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

struct MemoryCase {
  std::uint64_t seed;
  std::uint32_t shards;
  std::uint64_t memory_budget;  // small: most inserts evict
};

void PrintTo(const MemoryCase& c, std::ostream* os) {
  *os << "seed " << c.seed << ", " << c.shards << " shards, " << c.memory_budget << " bytes";
}

class FilterInvariant : public ::testing::TestWithParam<MemoryCase> {};

TEST_P(FilterInvariant, HoldsThroughRandomOperationsOnAMemoryStore) {
  const MemoryCase c = GetParam();
  auto store = open_store(memory_options(c.memory_budget, c.shards));
  WorkloadRunner runner(*store, c.seed, Workload{});
  constexpr std::uint64_t kOps = 750'000;
  constexpr std::uint64_t kCheckEvery = 25'000;
  for (std::uint64_t done = 0; done < kOps; done += kCheckEvery) {
    runner.run(kCheckEvery);
    expect_filter_matches_index(*store);
    ASSERT_LE(store->stats().memory_bytes, c.memory_budget);
  }
  const StoreStats st = store->stats();
  EXPECT_GT(st.memory_evictions, 10'000U);
  EXPECT_EQ(st.memory_objects, st.objects);
}

INSTANTIATE_TEST_SUITE_P(Seeds, FilterInvariant,
                         ::testing::Values(MemoryCase{1, 1, 100'000}, MemoryCase{2, 4, 200'000},
                                           MemoryCase{3, 16, 300'000}, MemoryCase{4, 7, 50'000}),
                         [](const ::testing::TestParamInfo<MemoryCase>& param_info) {
                           return "seed" + std::to_string(param_info.param.seed) + "_shards" +
                                  std::to_string(param_info.param.shards);
                         });

TEST(FilterInvariantDisk, HoldsThroughRandomOperationsOnADiskStoreAndAcrossARestart) {
  TempDir dir;
  // Memory holds a fraction of what the disk holds, and the disk a fraction
  // of the key space: both tiers evict.
  const StoreOptions options = disk_options(dir.path(), 60'000, 400'000, 4);
  std::uint64_t on_disk = 0;
  {
    auto store = open_store(options);
    WorkloadRunner runner(*store, 99, Workload{});
    for (int round = 0; round < 20; ++round) {
      runner.run(3'000);
      store->flush();
      expect_filter_matches_index(*store);
      ASSERT_LE(store->stats().disk_bytes, 400'000U);
    }
    const StoreStats st = store->stats();
    EXPECT_GT(st.memory_evictions, 0U);
    EXPECT_GT(st.disk_evictions, 0U);
    EXPECT_EQ(st.disk_write_errors, 0U);
    EXPECT_EQ(st.damaged_files_removed, 0U);
    on_disk = st.disk_objects;  // what a restart brings back
  }
  auto store = open_store(options);
  EXPECT_EQ(store->stats().objects, on_disk);
  EXPECT_EQ(store->stats().damaged_files_removed, 0U);
  expect_filter_matches_index(*store);
}

}  // namespace
}  // namespace sumcache::daemon
