// The disk tier: background writes, restart, damaged files, disk LRU,
// promotion, refresh of disk-only objects, streaming reads, write errors.

#include <fcntl.h>
#include <sched.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "daemon/store/object_file.h"
#include "daemon/store/object_path.h"
#include "daemon/store/store.h"
#include "daemon/store/store_error.h"
#include "tests/daemon/store/store_test_support.h"

namespace sumcache::daemon {
namespace {

namespace fs = std::filesystem;
using testing::body_of;
using testing::disk_options;
using testing::expect_filter_matches_index;
using testing::flip_byte;
using testing::LogLines;
using testing::make_object;
using testing::open_store;
using testing::path_for;
using testing::TempDir;

std::string key_of(int i) { return "http://disk.example/" + std::to_string(i); }
std::string body_for(int i) { return std::string(100 + i * 37, static_cast<char>('a' + i % 26)); }

std::vector<std::uint8_t> counters_of(const Store& store) {
  const IndexSnapshot snapshot = store.index_snapshot();
  const auto bytes = snapshot.filter->counter_bytes();
  return {bytes.begin(), bytes.end()};
}

// Fills a store with objects 0..n-1 (variants on every third) and closes it.
void fill_and_close(const std::string& dir, int n) {
  auto store = open_store(disk_options(dir));
  for (int i = 0; i < n; ++i) {
    ASSERT_FALSE(
        store->insert(make_object(*store, key_of(i), body_for(i), i % 3 == 0 ? "gzip" : "")));
  }
  store->flush();
}

TEST(StoreDisk, WritesHappenInTheBackgroundAndTheObjectStaysReadable) {
  TempDir dir;
  auto store = open_store(disk_options(dir.path()));
  ASSERT_FALSE(store->insert(make_object(*store, key_of(1), body_for(1))));
  ASSERT_EQ(store->find(key_of(1)).size(), 1U);  // from memory, written or not
  store->flush();
  EXPECT_TRUE(fs::exists(path_for(*store, dir.path(), key_of(1))));
  const StoreStats st = store->stats();
  EXPECT_EQ(st.disk_objects, 1U);
  EXPECT_EQ(st.disk_bytes, fs::file_size(path_for(*store, dir.path(), key_of(1))));
  EXPECT_EQ(st.memory_objects, 1U);
  EXPECT_EQ(st.disk_writes, 1U);
  EXPECT_EQ(st.queued_disk_jobs, 0U);
}

// Where the files were before the 16 x 256 layout: root/ab/cd/<name>.
std::string legacy_path_of(const std::string& dir, const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  return dir + "/" + name.substr(0, 2) + "/" + name.substr(2, 2) + "/" + name;
}

TEST(StoreDisk, FilesOfTheEarlierLayoutAreMovedIntoPlaceAtStartup) {
  TempDir dir;
  fill_and_close(dir.path(), 12);
  std::vector<std::string> legacy_files;
  for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
    const std::string path = entry.path().string();
    if (!entry.is_regular_file() || entry.path().filename() == kLockFileName) continue;
    legacy_files.push_back(legacy_path_of(dir.path(), path));
    fs::create_directories(fs::path(legacy_files.back()).parent_path());
    fs::rename(path, legacy_files.back());
  }
  ASSERT_EQ(legacy_files.size(), 12U);
  LogLines log;
  auto options = disk_options(dir.path());
  options.log = log.sink();
  auto store = open_store(options);
  EXPECT_TRUE(log.any_contains("moved 12 object files"));
  EXPECT_EQ(store->stats().disk_objects, 12U);
  expect_filter_matches_index(*store);
  for (int i = 0; i < 12; ++i) {
    const auto found = store->find(key_of(i));
    ASSERT_EQ(found.size(), 1U) << i;
    EXPECT_EQ(body_of(*store, found[0]), body_for(i));
    EXPECT_TRUE(fs::exists(path_for(*store, dir.path(), key_of(i), i % 3 == 0 ? "gzip" : "")));
  }
  for (const auto& old : legacy_files) {
    EXPECT_FALSE(fs::exists(fs::path(old).parent_path())) << old;  // emptied and removed
  }
}

TEST(StoreDisk, AnEarlierLayoutCopyOfAFileInPlaceIsRemoved) {
  TempDir dir;
  fill_and_close(dir.path(), 1);
  std::string current;
  {
    auto store = open_store(disk_options(dir.path()));
    current = path_for(*store, dir.path(), key_of(0), "gzip");
  }
  const std::string old = legacy_path_of(dir.path(), current);
  fs::create_directories(fs::path(old).parent_path());
  fs::copy_file(current, old);
  LogLines log;
  auto options = disk_options(dir.path());
  options.log = log.sink();
  auto store = open_store(options);
  EXPECT_TRUE(log.any_contains("removed " + old, "already in place"));
  EXPECT_FALSE(fs::exists(old));
  EXPECT_EQ(store->stats().disk_objects, 1U);
  expect_filter_matches_index(*store);
  EXPECT_EQ(body_of(*store, store->find(key_of(0)).at(0)), body_for(0));
}

// The writer copies what memory already serves: it runs only on CPU time the
// workers leave (docs/performance.md, the 100k-URL row).
TEST(StoreDisk, TheWriterThreadRunsAtIdlePriority) {
  TempDir dir;
  auto store = open_store(disk_options(dir.path()));
  ASSERT_FALSE(store->insert(make_object(*store, key_of(1), body_for(1))));
  store->flush();  // the writer has run a job: it is past its setup
  int policy = -1;
  for (const auto& task : fs::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name == "sc-disk") policy = sched_getscheduler(std::stoi(task.path().filename().string()));
  }
  EXPECT_EQ(policy, SCHED_IDLE);
}

TEST(StoreDisk, RestartBringsBackEveryObjectWithIdenticalBytesAndTheSameFilter) {
  TempDir dir;
  std::vector<std::uint8_t> counters_before;
  filters::BloomFilter bits_before = *filters::BloomFilter::create({1, 1});
  {
    auto store = open_store(disk_options(dir.path()));
    for (int i = 0; i < 40; ++i) {
      const std::string variant = i % 4 == 0 ? "br" : "";
      ASSERT_FALSE(
          store->insert(make_object(*store, key_of(i), body_for(i), variant,
                                    "meta" + std::to_string(i), "head" + std::to_string(i))));
      if (i % 4 == 0) {
        ASSERT_FALSE(store->insert(make_object(*store, key_of(i), "plain" + std::to_string(i))));
      }
    }
    store->flush();
    counters_before = counters_of(*store);
    bits_before = store->filter_snapshot();
  }
  LogLines log;
  auto options = disk_options(dir.path());
  options.log = log.sink();
  auto store = open_store(options);
  EXPECT_TRUE(log.lines().empty());
  EXPECT_EQ(counters_of(*store), counters_before);
  EXPECT_EQ(store->filter_snapshot(), bits_before);
  expect_filter_matches_index(*store);
  EXPECT_EQ(store->stats().objects, 50U);
  EXPECT_EQ(store->stats().memory_objects, 0U);
  for (int i = 0; i < 40; ++i) {
    const auto found = store->find(key_of(i));
    ASSERT_EQ(found.size(), i % 4 == 0 ? 2U : 1U) << i;
    for (const ObjectPtr& o : found) {
      EXPECT_EQ(o->body, nullptr);
      EXPECT_EQ(o->key, key_of(i));
      if (o->variant.empty() && i % 4 == 0) {
        EXPECT_EQ(body_of(*store, o), "plain" + std::to_string(i));
        continue;
      }
      EXPECT_EQ(o->meta, "meta" + std::to_string(i));
      EXPECT_EQ(o->head, "head" + std::to_string(i));
      EXPECT_EQ(body_of(*store, o), body_for(i));
    }
  }
  EXPECT_EQ(store->stats().memory_objects, 50U);  // every load was promoted
}

TEST(StoreDisk, DamagedPartialAndTempFilesAreRemovedAndLoggedTheRestIntact) {
  TempDir dir;
  fill_and_close(dir.path(), 12);
  auto probe = open_store(testing::memory_options());  // for hash_key only
  const std::string header_flipped = path_for(*probe, dir.path(), key_of(1));
  const std::string body_flipped = path_for(*probe, dir.path(), key_of(2));
  const std::string truncated = path_for(*probe, dir.path(), key_of(4));
  const std::string temp = path_for(*probe, dir.path(), key_of(5)) + ".tmp";
  flip_byte(header_flipped, kPreludeBytes + 5);
  flip_byte(body_flipped, fs::file_size(body_flipped) - 20);
  fs::resize_file(truncated, fs::file_size(truncated) - 3);
  std::ofstream(temp) << "half a write";

  LogLines log;
  auto options = disk_options(dir.path());
  options.log = log.sink();
  auto store = open_store(options);
  EXPECT_TRUE(log.any_contains(header_flipped, "checksum"));
  EXPECT_TRUE(log.any_contains(truncated, "truncated"));
  EXPECT_TRUE(log.any_contains(temp, "temp file"));
  EXPECT_FALSE(fs::exists(header_flipped) || fs::exists(truncated) || fs::exists(temp));
  EXPECT_EQ(store->stats().damaged_files_removed, 3U);
  EXPECT_TRUE(store->find(key_of(1)).empty());
  EXPECT_TRUE(store->find(key_of(4)).empty());

  // A damaged body passes the open-time checks and is caught when read.
  const auto found = store->find(key_of(2));
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(store->load_body(found[0]).error(), StoreErrc::checksum_mismatch);
  store->flush();
  EXPECT_FALSE(fs::exists(body_flipped));
  EXPECT_TRUE(log.any_contains(body_flipped, "checksum"));
  EXPECT_TRUE(store->find(key_of(2)).empty());
  EXPECT_EQ(store->stats().damaged_files_removed, 4U);

  for (int i : {0, 3, 6, 7, 8, 9, 10, 11}) {
    const auto ok = store->find(key_of(i));
    ASSERT_EQ(ok.size(), 1U) << i;
    EXPECT_EQ(body_of(*store, ok[0]), body_for(i));
  }
  expect_filter_matches_index(*store);
}

TEST(StoreDisk, VerifyingBodiesOnOpenCatchesADamagedBodyAtOnce) {
  TempDir dir;
  fill_and_close(dir.path(), 3);
  auto probe = open_store(testing::memory_options());
  const std::string damaged = path_for(*probe, dir.path(), key_of(1));
  flip_byte(damaged, fs::file_size(damaged) - 20);
  LogLines log;
  auto options = disk_options(dir.path());
  options.verify_bodies_on_open = true;
  options.log = log.sink();
  auto store = open_store(options);
  EXPECT_TRUE(log.any_contains(damaged, "checksum"));
  EXPECT_EQ(store->stats().objects, 2U);
  expect_filter_matches_index(*store);
}

TEST(StoreDisk, AnotherKeyWithTheSameHashIsAMissOnDiskToo) {
  TempDir dir;
  fill_and_close(dir.path(), 2);
  auto store = open_store(disk_options(dir.path()));
  std::vector<ObjectPtr> out;
  store->find("http://collides/", store->hash_key(key_of(1)), out);
  EXPECT_TRUE(out.empty());
  StoredObject forged{"http://collides/",        "",      store->hash_key(key_of(1)), "meta",
                      "HTTP/1.1 200 OK\r\n\r\n", nullptr, body_for(1).size()};
  EXPECT_EQ(store->load_body(std::make_shared<const StoredObject>(forged)).error(),
            StoreErrc::key_mismatch);
  EXPECT_EQ(store->find(key_of(1)).size(), 1U);  // the real object is untouched
}

TEST(StoreDisk, DiskEvictionTakesTheLeastRecentlyUsedFileFirst) {
  TempDir dir;
  auto probe = open_store(testing::memory_options());
  const std::uint64_t file = file_bytes_for(make_object(*probe, key_of(1), body_for(0)));
  // The memory budget holds no object: everything lives on disk alone.
  auto store = open_store(disk_options(dir.path(), 10, 3 * file));
  const auto put = [&](int i) {
    ASSERT_FALSE(store->insert(make_object(*store, key_of(i), body_for(0))));
    store->flush();
  };
  put(1);
  put(2);
  put(3);
  ASSERT_EQ(store->find(key_of(1)).size(), 1U);  // 1 becomes the most recent
  put(4);                                        // evicts 2
  EXPECT_TRUE(store->find(key_of(2)).empty());
  EXPECT_FALSE(fs::exists(path_for(*store, dir.path(), key_of(2))));
  for (int i : {1, 3, 4}) EXPECT_EQ(store->find(key_of(i)).size(), 1U) << i;
  const StoreStats st = store->stats();
  EXPECT_EQ(st.disk_evictions, 1U);
  EXPECT_EQ(st.disk_bytes, 3 * file);
  EXPECT_EQ(st.memory_objects, 0U);
  expect_filter_matches_index(*store);
}

TEST(StoreDisk, MemoryEvictionKeepsTheDiskCopyAndALoadPromotesItBack) {
  TempDir dir;
  auto probe = open_store(testing::memory_options());
  const std::uint64_t one = object_bytes(make_object(*probe, key_of(1), body_for(1)));
  auto store = open_store(disk_options(dir.path(), one + 10));
  ASSERT_FALSE(store->insert(make_object(*store, key_of(1), body_for(1))));
  store->flush();
  ASSERT_FALSE(store->insert(make_object(*store, key_of(2), body_for(1))));  // evicts 1 from memory
  store->flush();
  EXPECT_EQ(store->stats().memory_evictions, 1U);
  const auto found = store->find(key_of(1));
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0]->body, nullptr);
  EXPECT_EQ(body_of(*store, found[0]), body_for(1));
  const auto again = store->find(key_of(1));  // promoted: now a memory hit
  ASSERT_EQ(again.size(), 1U);
  ASSERT_NE(again[0]->body, nullptr);
  EXPECT_EQ(*again[0]->body, body_for(1));
  EXPECT_EQ(store->stats().memory_objects, 1U);
  EXPECT_EQ(store->stats().disk_objects, 2U);
  expect_filter_matches_index(*store);
}

TEST(StoreDisk, RefreshingADiskOnlyObjectRewritesItsFile) {
  TempDir dir;
  fill_and_close(dir.path(), 2);
  {
    auto store = open_store(disk_options(dir.path()));
    ASSERT_FALSE(store->update_meta(key_of(1), "", "fresh-meta", "fresh-head"));
    const auto pending = store->find(key_of(1));  // visible before the rewrite lands
    ASSERT_EQ(pending.size(), 1U);
    EXPECT_EQ(pending[0]->head, "fresh-head");
    EXPECT_EQ(body_of(*store, pending[0]), body_for(1));
    store->flush();
    EXPECT_EQ(store->stats().disk_objects, 2U);
  }
  auto store = open_store(disk_options(dir.path()));
  const auto found = store->find(key_of(1));
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0]->meta, "fresh-meta");
  EXPECT_EQ(found[0]->head, "fresh-head");
  EXPECT_EQ(body_of(*store, found[0]), body_for(1));
}

TEST(StoreDisk, AnObjectFoundBeforeARefreshIsStaleAfterIt) {
  TempDir dir;
  fill_and_close(dir.path(), 2);
  auto store = open_store(disk_options(dir.path()));
  const auto old = store->find(key_of(1));
  ASSERT_EQ(old.size(), 1U);
  ASSERT_FALSE(store->update_meta(key_of(1), "", "m2", "h2"));
  store->flush();
  EXPECT_EQ(store->load_body(old[0]).error(), StoreErrc::stale);
}

TEST(StoreDisk, LargeBodiesStreamInChunksAndADamagedOneFailsAtItsEnd) {
  TempDir dir;
  const std::string big(300'000, 'z');
  {
    auto store = open_store(disk_options(dir.path()));
    std::string body = big;
    body[123'456] = 'q';
    ASSERT_FALSE(store->insert(make_object(*store, key_of(1), body)));
    ASSERT_FALSE(store->insert(make_object(*store, key_of(2), body)));
  }
  auto store = open_store(disk_options(dir.path()));
  flip_byte(path_for(*store, dir.path(), key_of(2)), kPreludeBytes + 200'000);
  const auto stream = [&](int i, std::string& out) -> std::error_code {
    const auto found = store->find(key_of(i));
    if (found.size() != 1) return StoreErrc::not_found;
    auto reader = store->open_body(*found[0]);
    if (!reader) return reader.error();
    std::vector<char> chunk(std::size_t{64} * 1024);
    for (std::uint64_t offset = 0;;) {
      auto n = reader->read(offset, chunk);
      if (!n) return n.error();
      if (*n == 0) return {};
      out.append(chunk.data(), *n);
      offset += *n;
    }
  };
  std::string good;
  ASSERT_FALSE(stream(1, good));
  EXPECT_EQ(good.size(), big.size());
  EXPECT_EQ(good[123'456], 'q');
  std::string bad;
  EXPECT_EQ(stream(2, bad), StoreErrc::checksum_mismatch);
  store->flush();
  EXPECT_TRUE(store->find(key_of(2)).empty());

  char three[3];
  const auto found = store->find(key_of(1));
  ASSERT_EQ(found.size(), 1U);
  auto reader = store->open_body(*found[0]);
  ASSERT_TRUE(reader.ok());
  auto n = reader->read(123'455, three);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 3U);
  EXPECT_EQ(std::string(three, 3), "zqz");
  EXPECT_EQ(*reader->read(big.size() - 1, three), 1U);
}

TEST(StoreDisk, RemoveAndReplaceLeaveExactlyTheCurrentFiles) {
  TempDir dir;
  {
    auto store = open_store(disk_options(dir.path()));
    ASSERT_FALSE(store->insert(make_object(*store, key_of(1), "v1")));
    ASSERT_FALSE(store->insert(make_object(*store, key_of(1), "v2")));
    ASSERT_FALSE(store->insert(make_object(*store, key_of(2), "x")));
    ASSERT_FALSE(store->insert(make_object(*store, key_of(2), "y", "gzip")));
    EXPECT_EQ(store->remove(key_of(2)), 2U);
    store->flush();
    EXPECT_FALSE(fs::exists(path_for(*store, dir.path(), key_of(2))));
    EXPECT_FALSE(fs::exists(path_for(*store, dir.path(), key_of(2), "gzip")));
  }
  auto store = open_store(disk_options(dir.path()));
  EXPECT_EQ(store->stats().objects, 1U);
  const auto found = store->find(key_of(1));
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(body_of(*store, found[0]), "v2");
}

TEST(StoreDisk, AFailedWriteIsCountedLoggedAndLeavesTheObjectInMemory) {
  TempDir dir;
  LogLines log;
  auto options = disk_options(dir.path());
  options.log = log.sink();
  auto store = open_store(options);
  // A file where the object's directory should be makes the write fail.
  const std::string path = path_for(*store, dir.path(), key_of(1));
  const std::string first_dir = fs::path(path).parent_path().parent_path().string();
  std::ofstream(first_dir) << "in the way";
  ASSERT_FALSE(store->insert(make_object(*store, key_of(1), "x")));
  store->flush();
  EXPECT_EQ(store->stats().disk_write_errors, 1U);
  EXPECT_TRUE(log.any_contains(path));
  EXPECT_EQ(store->find(key_of(1)).size(), 1U);
  EXPECT_EQ(store->stats().disk_objects, 0U);
  expect_filter_matches_index(*store);
}

TEST(StoreDisk, ASecondStoreOnTheSameDirectoryIsRefusedUntilTheFirstCloses) {
  TempDir dir;
  auto first = open_store(disk_options(dir.path()));
  EXPECT_EQ(Store::open(disk_options(dir.path())).error(), StoreErrc::disk_in_use);
  first.reset();
  LogLines log;
  auto options = disk_options(dir.path());
  options.log = log.sink();
  EXPECT_TRUE(Store::open(options).ok());
  EXPECT_TRUE(log.lines().empty());  // the lock file is not taken for a stray file
}

// A FIFO at the first object's temp path holds the writer in open() until a
// reader comes: the queue stays full for as long as the test needs.
TEST(StoreDisk, AFullWriteQueueKeepsObjectsInMemoryOrRefusesThem) {
  TempDir dir;
  auto options = disk_options(dir.path(), 700);
  options.max_object_bytes = 1000;
  options.write_queue_max_bytes = 1000;
  options.fsync = true;  // fails on the FIFO: the blocked write ends in an error
  auto store = open_store(options);
  const std::string blocked = path_for(*store, dir.path(), key_of(1)) + ".tmp";
  fs::create_directories(fs::path(blocked).parent_path());
  ASSERT_EQ(::mkfifo(blocked.c_str(), 0600), 0);

  // 644 bytes each: A is queued, B finds the queue full and stays in memory
  // only (evicting A from memory, whose write is still queued), C fits
  // neither the queue nor the memory tier.
  ASSERT_FALSE(store->insert(make_object(*store, key_of(1), std::string(600, 'a'))));
  ASSERT_FALSE(store->insert(make_object(*store, key_of(2), std::string(600, 'b'))));
  EXPECT_EQ(store->insert(make_object(*store, key_of(3), std::string(760, 'c'))),
            StoreErrc::queue_full);
  StoreStats st = store->stats();
  EXPECT_EQ(st.disk_writes_skipped, 2U);
  EXPECT_EQ(st.memory_evictions, 1U);
  EXPECT_EQ(store->find(key_of(1)).size(), 1U);  // evicted from memory, held for its write
  EXPECT_TRUE(store->find(key_of(3)).empty());
  expect_filter_matches_index(*store);

  std::thread reader([&] {
    const int fd = ::open(blocked.c_str(), O_RDONLY);
    char sink[4096];
    while (fd >= 0 && ::read(fd, sink, sizeof sink) > 0) {
    }
    if (fd >= 0) ::close(fd);
  });
  store->flush();
  reader.join();
  st = store->stats();
  EXPECT_EQ(st.disk_write_errors, 1U);
  EXPECT_TRUE(store->find(key_of(1)).empty());  // its write failed and memory had let it go
  EXPECT_EQ(store->find(key_of(2)).size(), 1U);
  EXPECT_EQ(st.objects, 1U);
  expect_filter_matches_index(*store);
}

}  // namespace
}  // namespace sumcache::daemon
