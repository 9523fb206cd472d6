// A disk that refuses writes (a full disk: one failure per object) is logged
// once per interval with the count, and counted (docs/store.md, "Disk full").
// The refusal is real: RLIMIT_FSIZE makes the kernel fail every write past
// the limit with EFBIG, the way a full disk fails them with ENOSPC, without a
// mount that tests could not make without root.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <thread>

#include "daemon/store/store.h"
#include "tests/daemon/store/store_test_support.h"

namespace sumcache::daemon {
namespace {

using testing::disk_options;
using testing::LogLines;
using testing::make_object;
using testing::open_store;
using testing::TempDir;

// Lowers this process's file size limit and ignores SIGXFSZ (whose default
// action would kill the test) for its lifetime.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    handler_ = std::signal(SIGXFSZ, SIG_IGN);
    ok_ = ::setrlimit(RLIMIT_FSIZE, &lowered) == 0;
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  void (*handler_)(int) = SIG_DFL;
  bool ok_ = false;
};

std::size_t lines_with(const LogLines& log, std::string_view text) {
  std::size_t n = 0;
  for (const std::string& line : log.lines()) n += line.find(text) != std::string::npos ? 1 : 0;
  return n;
}

TEST(StoreDiskFull, FailedWritesAreLoggedOncePerIntervalWithTheCount) {
  TempDir dir;
  LogLines log;
  auto options = disk_options(dir.path());
  options.log = log.sink();
  auto store = open_store(options);
  ASSERT_NE(store, nullptr);
  const std::string body(16 * 1024, 'x');
  constexpr int kObjects = 40;
  {
    FileSizeLimit limit(4096);
    ASSERT_TRUE(limit.ok());
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kObjects; ++i) {
      ASSERT_FALSE(store->insert(make_object(*store, "http://o/" + std::to_string(i), body)));
    }
    store->flush();
    ASSERT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900))
        << "too slow to test the interval";
    EXPECT_EQ(store->stats().disk_write_errors, static_cast<std::uint64_t>(kObjects));
    EXPECT_EQ(store->stats().disk_objects, 0U);
    EXPECT_EQ(lines_with(log, "store: writing"), 1U);
    EXPECT_EQ(lines_with(log, "File too large (1 disk write errors so far)"), 1U);
    // Past the interval, the next failure is logged with what was held back.
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    ASSERT_FALSE(store->insert(make_object(*store, "http://o/last", body)));
    store->flush();
  }
  EXPECT_EQ(lines_with(log, "store: writing"), 2U);
  EXPECT_EQ(lines_with(log, "(41 disk write errors so far, 39 not logged since the last line)"),
            1U);
  // Every object is still served from memory, and the disk takes writes again.
  EXPECT_EQ(store->find("http://o/0").size(), 1U);
  ASSERT_FALSE(store->insert(make_object(*store, "http://o/after", body)));
  store->flush();
  EXPECT_EQ(store->stats().disk_objects, 1U);
  EXPECT_EQ(store->stats().disk_write_errors, static_cast<std::uint64_t>(kObjects + 1));
}

// A fill larger than the memory tier that the disk refuses midway: counted,
// logged once per interval, nothing stored, no temp file left.
TEST(StoreDiskFull, AFailedDiskFillIsCountedLoggedAndLeavesNothing) {
  TempDir dir;
  LogLines log;
  auto options = disk_options(dir.path(), 64 * 1024);
  options.log = log.sink();
  auto store = open_store(options);
  ASSERT_NE(store, nullptr);
  const std::string chunk(64 * 1024, 'f');
  for (int i = 0; i < 3; ++i) {
    StoredObject head = make_object(*store, "http://o/fill" + std::to_string(i), "");
    head.body.reset();
    head.body_size = 8 * chunk.size();
    auto fill = store->begin_disk_fill(std::move(head));
    ASSERT_TRUE(fill.ok()) << fill.error().message();
    FileSizeLimit limit(100 * 1024);
    ASSERT_TRUE(limit.ok());
    std::error_code ec;
    for (int c = 0; c < 8 && !ec; ++c) ec = (*fill)->append(chunk);
    EXPECT_EQ(ec, std::errc::file_too_large);
    EXPECT_TRUE((*fill)->commit());
  }
  store->flush();
  const StoreStats st = store->stats();
  EXPECT_EQ(st.disk_fill_errors, 3U);
  EXPECT_EQ(st.objects, 0U);
  EXPECT_EQ(st.disk_fills, 0U);
  EXPECT_EQ(lines_with(log, "store: writing a fill to"), 1U);
  EXPECT_EQ(lines_with(log, "(1 disk fill errors so far)"), 1U);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path())) {
    EXPECT_FALSE(entry.path().string().ends_with(".tmp")) << entry.path();
  }
}

}  // namespace
}  // namespace sumcache::daemon
