// THE INVARIANT: after any sequence of operations, the counting filter is
// exactly the filter of the distinct primary keys in the index, counter for
// counter, and its bit view is the plain Bloom filter of those keys; with
// filter.kind fingerprint, the fingerprint table is exactly the multiset of
// those keys' fingerprints.
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
using testing::with_fingerprints;
using testing::Workload;
using testing::WorkloadRunner;

struct MemoryCase {
  std::uint64_t seed;
  std::uint32_t shards;
  std::uint64_t memory_budget;  // small: most inserts evict
  // filter.kind fingerprint: a table of this universe (small: fingerprints
  // repeat, so removing one copy of a repeated one is exercised); 0: counting.
  std::uint64_t universe = 0;
};

void PrintTo(const MemoryCase& c, std::ostream* os) {
  *os << "seed " << c.seed << ", " << c.shards << " shards, " << c.memory_budget << " bytes";
  if (c.universe != 0) *os << ", fingerprints in " << c.universe;
}

class FilterInvariant : public ::testing::TestWithParam<MemoryCase> {};

TEST_P(FilterInvariant, HoldsThroughRandomOperationsOnAMemoryStore) {
  const MemoryCase c = GetParam();
  StoreOptions options = memory_options(c.memory_budget, c.shards);
  if (c.universe != 0) options = with_fingerprints(options, c.universe);
  auto store = open_store(options);
  ASSERT_EQ(store->keeps_fingerprints(), c.universe != 0);
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
                                           MemoryCase{3, 16, 300'000}, MemoryCase{4, 7, 50'000},
                                           MemoryCase{5, 1, 100'000, 4096},
                                           MemoryCase{6, 7, 200'000, 1 << 24}),
                         [](const ::testing::TestParamInfo<MemoryCase>& param_info) {
                           return "seed" + std::to_string(param_info.param.seed) + "_shards" +
                                  std::to_string(param_info.param.shards) +
                                  (param_info.param.universe != 0 ? "_fingerprints" : "");
                         });

class FilterInvariantDisk : public ::testing::TestWithParam<bool> {};

TEST_P(FilterInvariantDisk, HoldsThroughRandomOperationsOnADiskStoreAndAcrossARestart) {
  TempDir dir;
  // Memory holds a fraction of what the disk holds, and the disk a fraction
  // of the key space: both tiers evict.
  StoreOptions options = disk_options(dir.path(), 60'000, 400'000, 4);
  if (GetParam()) options = with_fingerprints(options);
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

INSTANTIATE_TEST_SUITE_P(Kinds, FilterInvariantDisk, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param_info) {
                           return param_info.param ? "fingerprint" : "counting_bloom";
                         });

}  // namespace
}  // namespace sumcache::daemon
