// Bodies larger than the memory tier written to the disk tier as they arrive
// (Store::begin_disk_fill), read back in chunks (BodyReader), and the lookups
// that leave the file opens to the I/O pool (docs/store.md, "Disk-only fills"
// and "Disk hits").
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "daemon/store/store.h"
#include "daemon/store/store_error.h"
#include "tests/daemon/store/store_test_support.h"

namespace sumcache::daemon {
namespace {

namespace fs = std::filesystem;
using testing::disk_options;
using testing::expect_filter_matches_index;
using testing::LogLines;
using testing::make_object;
using testing::open_store;
using testing::TempDir;

constexpr std::uint64_t kMemory = 64 * 1024;  // the memory tier: smaller than the bodies

StoredObject head_only(const Store& store, const std::string& key, std::uint64_t body_size) {
  StoredObject o = make_object(store, key, "", "", "meta", "HTTP/1.1 200 OK\r\n\r\n");
  o.body.reset();
  o.body_size = body_size;
  return o;
}

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  return s;
}

// The whole body through a BodyReader, in 64 KiB reads from 0.
Result<std::string> stream_body(Store& store, const std::string& key) {
  const auto found = store.find(key);
  if (found.size() != 1) return make_error_code(StoreErrc::not_found);
  auto reader = store.open_body(*found[0]);
  if (!reader) return reader.error();
  std::string out;
  std::vector<char> chunk(64 * 1024);
  for (std::uint64_t offset = 0;;) {
    auto n = reader->read(offset, chunk);
    if (!n) return n.error();
    if (*n == 0) return out;
    out.append(chunk.data(), *n);
    offset += *n;
  }
}

std::size_t temp_files(const std::string& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    n += e.path().string().ends_with(".tmp") ? 1 : 0;
  }
  return n;
}

void fill(Store& store, const std::string& key, const std::string& body) {
  auto f = store.begin_disk_fill(head_only(store, key, body.size()));
  ASSERT_TRUE(f.ok()) << f.error().message();
  for (std::size_t at = 0; at < body.size(); at += 100'000) {
    ASSERT_FALSE((*f)->append(std::string_view(body).substr(at, 100'000)));
  }
  ASSERT_FALSE((*f)->commit());
}

TEST(DiskFill, ABodyLargerThanTheMemoryTierLivesOnDiskOnlyAndSurvivesARestart) {
  TempDir dir;
  const std::string body = pattern(1'000'000);
  {
    auto store = open_store(disk_options(dir.path(), kMemory, 1 << 24));
    ASSERT_NE(store, nullptr);
    fill(*store, "http://o/big", body);
    store->flush();
    const StoreStats st = store->stats();
    EXPECT_EQ(st.disk_fills, 1U);
    EXPECT_EQ(st.disk_objects, 1U);
    EXPECT_EQ(st.memory_objects, 0U);
    EXPECT_EQ(st.memory_bytes, 0U);
    const auto found = store->find("http://o/big");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_EQ(found[0]->body, nullptr);
    EXPECT_EQ(found[0]->body_size, body.size());
    auto streamed = stream_body(*store, "http://o/big");
    ASSERT_TRUE(streamed.ok()) << streamed.error().message();
    EXPECT_TRUE(*streamed == body);
    EXPECT_EQ(store->stats().memory_objects, 0U);  // streaming promotes nothing
    expect_filter_matches_index(*store);
    EXPECT_EQ(temp_files(dir.path()), 0U);
  }
  // The scan at open accepts the file: header, body and checksum as any other.
  auto store = open_store(disk_options(dir.path(), kMemory, 1 << 24));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->stats().objects, 1U);
  EXPECT_EQ(store->stats().damaged_files_removed, 0U);
  auto streamed = stream_body(*store, "http://o/big");
  ASSERT_TRUE(streamed.ok());
  EXPECT_TRUE(*streamed == body);
}

TEST(DiskFill, AnUncommittedFillLeavesNoEntryNoFilterKeyAndNoFile) {
  TempDir dir;
  auto store = open_store(disk_options(dir.path(), kMemory, 1 << 24));
  ASSERT_NE(store, nullptr);
  {
    auto f = store->begin_disk_fill(head_only(*store, "http://o/cut", 500'000));
    ASSERT_TRUE(f.ok());
    ASSERT_FALSE((*f)->append(pattern(200'000)));
    EXPECT_EQ(temp_files(dir.path()), 1U);
    EXPECT_TRUE(store->find("http://o/cut").empty());  // not in the index before commit
  }
  store->flush();
  EXPECT_EQ(temp_files(dir.path()), 0U);
  EXPECT_EQ(store->stats().objects, 0U);
  EXPECT_FALSE(store->filter_snapshot().contains("http://o/cut"));
  EXPECT_EQ(store->stats().disk_fill_errors, 0U);  // an abort is not a disk failure
}

TEST(DiskFill, ABodyShortOrLongOfItsDeclaredLengthIsRefusedAndCounted) {
  TempDir dir;
  LogLines log;
  auto options = disk_options(dir.path(), kMemory, 1 << 24);
  options.log = log.sink();
  auto store = open_store(options);
  ASSERT_NE(store, nullptr);
  {
    auto f = store->begin_disk_fill(head_only(*store, "http://o/short", 300'000));
    ASSERT_TRUE(f.ok());
    ASSERT_FALSE((*f)->append(pattern(299'999)));
    EXPECT_EQ((*f)->commit(), StoreErrc::fill_incomplete);
  }
  {
    auto f = store->begin_disk_fill(head_only(*store, "http://o/long", 300'000));
    ASSERT_TRUE(f.ok());
    EXPECT_EQ((*f)->append(pattern(300'001)), StoreErrc::fill_incomplete);
  }
  store->flush();
  EXPECT_EQ(store->stats().disk_fill_errors, 2U);
  EXPECT_EQ(store->stats().objects, 0U);
  EXPECT_TRUE(log.any_contains("store: writing a fill to", "not the declared length"));
  EXPECT_EQ(temp_files(dir.path()), 0U);
}

TEST(DiskFill, AFillPastTheDiskBudgetOrWithoutADiskTierIsRefused) {
  TempDir dir;
  auto store = open_store(disk_options(dir.path(), kMemory, 1 << 20));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->begin_disk_fill(head_only(*store, "http://o/huge", 2 << 20)).error(),
            StoreErrc::too_large);
  auto memory_only = open_store(testing::memory_options());
  ASSERT_NE(memory_only, nullptr);
  EXPECT_EQ(memory_only->begin_disk_fill(head_only(*memory_only, "http://o/x", 10)).error(),
            StoreErrc::disk_disabled);
}

TEST(DiskFill, AFillReplacesTheObjectAndAPurgeDuringItsPlacementWins) {
  TempDir dir;
  auto store = open_store(disk_options(dir.path(), kMemory, 1 << 24));
  ASSERT_NE(store, nullptr);
  ASSERT_FALSE(store->insert(make_object(*store, "http://o/r", "small")));
  const std::string body = pattern(400'000);
  fill(*store, "http://o/r", body);
  store->flush();
  auto streamed = stream_body(*store, "http://o/r");
  ASSERT_TRUE(streamed.ok());
  EXPECT_TRUE(*streamed == body);
  EXPECT_EQ(store->stats().objects, 1U);
  EXPECT_EQ(store->stats().memory_objects, 0U);  // the small old copy left memory

  fill(*store, "http://o/p", body);
  EXPECT_EQ(store->remove("http://o/p"), 1U);  // before or after the writer placed it
  store->flush();
  EXPECT_TRUE(store->find("http://o/p").empty());
  EXPECT_EQ(temp_files(dir.path()), 0U);
  EXPECT_FALSE(fs::exists(testing::path_for(*store, dir.path(), "http://o/p")));
  expect_filter_matches_index(*store);
}

TEST(DiskFill, AStreamedBodyDamagedOnDiskFailsAtItsEndAndItsFileIsRemoved) {
  TempDir dir;
  const std::string body = pattern(700'000);
  {
    auto store = open_store(disk_options(dir.path(), kMemory, 1 << 24));
    fill(*store, "http://o/d", body);
  }
  auto store = open_store(disk_options(dir.path(), kMemory, 1 << 24));
  ASSERT_NE(store, nullptr);
  const std::string path = testing::path_for(*store, dir.path(), "http://o/d");
  testing::flip_byte(path, kPreludeBytes + 650'000);
  auto streamed = stream_body(*store, "http://o/d");
  EXPECT_EQ(streamed.error(), StoreErrc::checksum_mismatch);
  store->flush();
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(store->find("http://o/d").empty());
  EXPECT_EQ(store->stats().damaged_files_removed, 1U);
}

TEST(DiskLookups, FindLeavesDiskOnlyVariantsUnopenedWhenAsked) {
  TempDir dir;
  {
    auto store = open_store(disk_options(dir.path(), kMemory, 1 << 24));
    ASSERT_FALSE(store->insert(make_object(*store, "http://o/v", "gz", "gzip")));
  }
  auto store = open_store(disk_options(dir.path(), kMemory, 1 << 24));
  ASSERT_NE(store, nullptr);
  const auto hash = store->hash_key("http://o/v");
  std::vector<ObjectPtr> out;
  std::vector<DiskCandidate> on_disk;
  // The file gone: a find that opened it would notice (and count a read error).
  const std::string path = testing::path_for(*store, dir.path(), "http://o/v", "gzip");
  const std::string moved = path + ".aside";
  fs::rename(path, moved);
  store->find("http://o/v", hash, out, &on_disk);
  EXPECT_TRUE(out.empty());
  ASSERT_EQ(on_disk.size(), 1U);
  EXPECT_EQ(store->stats().disk_read_errors, 0U);
  fs::rename(moved, path);
  const auto found = store->find_on_disk("http://o/v", hash, on_disk);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0]->variant, "gzip");
  EXPECT_EQ(store->stats().disk_hits, 1U);
}

TEST(StoreIoPool, RunsJobsOffTheCallersThreadAndStopRunsWhatIsQueued) {
  auto store = open_store(testing::memory_options());
  ASSERT_NE(store, nullptr);
  std::promise<std::thread::id> where;
  store->post_io([&where] { where.set_value(std::this_thread::get_id()); });
  auto id = where.get_future();
  ASSERT_EQ(id.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_NE(id.get(), std::this_thread::get_id());
  std::atomic<int> ran{0};
  for (int i = 0; i < 100; ++i) store->post_io([&ran] { ran.fetch_add(1); });
  store->stop_io();
  EXPECT_EQ(ran.load(), 100);
  store->post_io([&ran] { ran.fetch_add(1); });  // after stop: on this thread, at once
  EXPECT_EQ(ran.load(), 101);
}

TEST(StoreStreamErrors, AreCountedAndLoggedOncePerInterval) {
  LogLines log;
  auto options = testing::memory_options();
  options.log = log.sink();
  auto store = open_store(options);
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 5; ++i) {
    store->note_stream_error("http://o/s", make_error_code(StoreErrc::checksum_mismatch));
  }
  EXPECT_EQ(store->stats().disk_stream_errors, 5U);
  std::size_t lines = 0;
  for (const auto& l : log.lines()) lines += l.find("cut short") != std::string::npos ? 1 : 0;
  EXPECT_EQ(lines, 1U);
  EXPECT_TRUE(
      log.any_contains("disk hit of http://o/s cut short", "(1 disk hits cut short so far)"));
}

}  // namespace
}  // namespace sumcache::daemon
