#pragma once
// Helpers for the store tests: temp directories, objects, a log that keeps
// its lines, and the filter-invariant check.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/store/object_path.h"
#include "daemon/store/store.h"
#include "filters/bloom_filter.h"
#include "filters/counting_bloom_filter.h"
#include "filters/fingerprint.h"
#include "filters/fingerprint_table.h"
#include "tests/support/temp_dir.h"

namespace sumcache::daemon::testing {

using sumcache::testing::TempDir;

// A fresh directory, removed with everything in it at scope end. On tmpfs
// (/dev/shm) when there is one: the tests exercise file semantics, not the
// device, and on an ext4 mounted with `discard` every unlink costs ~1 ms,
// which made the disk workload tests 15x slower.
// Log lines, kept for assertions; thread-safe like the store requires.
class LogLines {
 public:
  std::function<void(std::string_view)> sink() {
    return [this](std::string_view line) {
      std::lock_guard lock(mutex_);
      lines_.emplace_back(line);
    };
  }
  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }
  bool any_contains(std::string_view a, std::string_view b = {}) const {
    for (const std::string& l : lines()) {
      if (l.find(a) != std::string::npos && l.find(b) != std::string::npos) return true;
    }
    return false;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

inline StoreOptions memory_options(std::uint64_t memory_max_bytes = 1 << 20,
                                   std::uint32_t shards = 1) {
  StoreOptions o;
  o.memory_max_bytes = memory_max_bytes;
  o.shards = shards;
  o.filter_params = {1 << 16, 4};
  return o;
}

inline StoreOptions disk_options(const std::string& dir, std::uint64_t memory_max_bytes = 1 << 20,
                                 std::uint64_t disk_max_bytes = 1 << 24, std::uint32_t shards = 1) {
  StoreOptions o = memory_options(memory_max_bytes, shards);
  o.disk_enabled = true;
  o.disk_path = dir;
  o.disk_max_bytes = disk_max_bytes;
  o.max_object_bytes = 1 << 20;
  o.write_queue_max_bytes = 1 << 24;
  return o;
}

inline std::unique_ptr<Store> open_store(StoreOptions options) {
  auto store = Store::open(std::move(options));
  EXPECT_TRUE(store.ok()) << store.error().message();
  return store.ok() ? std::move(store).value() : nullptr;
}

inline StoredObject make_object(const Store& store, std::string key, std::string body,
                                std::string variant = {}, std::string meta = "meta",
                                std::string head = "HTTP/1.1 200 OK\r\n\r\n") {
  StoredObject o;
  o.hash = store.hash_key(key);
  o.key = std::move(key);
  o.variant = std::move(variant);
  o.meta = std::move(meta);
  o.head = std::move(head);
  o.body_size = body.size();
  o.body = std::make_shared<const std::string>(std::move(body));
  return o;
}

// Where an object's file is, with the default hasher.
inline std::string path_for(const Store& store, const std::string& dir, const std::string& key,
                            std::string_view variant = {}) {
  return object_file_path(dir, store.hash_key(key), variant_hash(filters::Hasher{}, variant));
}

// Damages a file: one bit of the byte at offset.
inline void flip_byte(const std::string& path, std::uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x40);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

// The body of an object from find(), from memory or from disk.
inline std::string body_of(Store& store, const ObjectPtr& object) {
  auto body = store.load_body(object);
  EXPECT_TRUE(body.ok()) << body.error().message();
  return body.ok() ? **body : std::string();
}

// The same store with filter.kind fingerprint: a table of this universe.
inline StoreOptions with_fingerprints(StoreOptions o, std::uint64_t universe = 1 << 24) {
  o.fingerprint_universe = universe;
  return o;
}

// THE INVARIANT: the counting filter equals one rebuilt from the index's
// keys, counter for counter, and its bit view equals a plain Bloom filter of
// those keys. Exact equality needs no counter to have saturated (a saturated
// counter never comes down again), so that is asserted first. With
// filter.kind fingerprint: the table holds exactly the fingerprints of the
// index's keys, one per key, repeats kept.
inline void expect_filter_matches_index(const Store& store) {
  const IndexSnapshot snap = store.index_snapshot();
  if (snap.fingerprints) {
    const filters::FingerprintTable& table = *snap.fingerprints;
    std::vector<std::uint64_t> expected;
    expected.reserve(snap.keys.size());
    for (const filters::Hash128& h : snap.keys) {
      expected.push_back(filters::fingerprint(h, table.universe()));
    }
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(table.size(), expected.size());
    ASSERT_TRUE(table.sorted() == expected)
        << "fingerprint table differs from one rebuilt from " << snap.keys.size() << " index keys";
    EXPECT_EQ(store.filter_stats().refused_removes, 0U);
    EXPECT_EQ(store.filter_stats().entries, snap.keys.size());
    return;
  }
  ASSERT_TRUE(snap.filter.has_value());
  const filters::CountingBloomFilter& filter = *snap.filter;
  ASSERT_EQ(filter.saturated_counters(), 0U) << "choose a larger m for this test";
  auto rebuilt = filters::CountingBloomFilter::create(filter.params(), filter.hasher());
  auto plain = filters::BloomFilter::create(filter.params(), filter.hasher());
  ASSERT_TRUE(rebuilt.ok() && plain.ok());
  for (const filters::Hash128& h : snap.keys) {
    rebuilt->add(h);
    plain->add(h);
  }
  const auto live = filter.counter_bytes();
  const auto expected = rebuilt->counter_bytes();
  ASSERT_TRUE(std::equal(live.begin(), live.end(), expected.begin(), expected.end()))
      << "counting filter differs from one rebuilt from " << snap.keys.size() << " index keys";
  EXPECT_EQ(filter.bit_view(), *plain);
  EXPECT_EQ(filter.refused_removes(), 0U);
  EXPECT_EQ(store.filter_stats().entries, snap.keys.size());
}

}  // namespace sumcache::daemon::testing
