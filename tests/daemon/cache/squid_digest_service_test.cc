// SquidDigestService over a real Store: the digest is derived from the
// store's keys (walked in bounded steps), rebuilt on its interval, keeps its
// Last-Modified while nothing changed, and counts and logs what it answered.

#include "daemon/cache/squid_digest_service.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "daemon/cache/squid_digest_build.h"
#include "tests/daemon/store/store_test_support.h"

namespace sumcache::daemon {
namespace {

using namespace std::chrono_literals;
using testing::make_object;
using testing::memory_options;
using testing::open_store;

// Polls until the service has made `n` builds; bounded by 10 s.
bool wait_for_builds(const SquidDigestService& service, std::uint64_t n) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (service.stats().builds < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

protocol::SquidDigest decode(const SquidDigestSnapshot& s) {
  protocol::SquidDigest digest;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(s.body.data());
  EXPECT_FALSE(protocol::SquidDigest::decode({bytes, s.body.size()},
                                             protocol::kSquidDigestMaxMaskBytes, digest));
  return digest;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class SquidDigestServiceTest : public ::testing::Test {
 protected:
  sumcache::testing::TempDir dir_;
  Logger log_{LogLevel::info, (dir_.path() / "error.log").string()};
};

TEST_F(SquidDigestServiceTest, HoldsEveryStoredKeyAcrossShardsAndSteps) {
  // More keys per shard than one step takes.
  auto store = open_store(memory_options(64 << 20, 2));
  ASSERT_TRUE(store);
  constexpr int kKeys = 3000;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "http://example.com/k/" + std::to_string(i);
    ASSERT_FALSE(store->insert(make_object(*store, key, "x")));
    // A second variant of the same key is one entry of the digest, as in the filter.
    if (i % 10 == 0) {
      ASSERT_FALSE(store->insert(make_object(*store, key, "y", "v2")));
    }
  }
  SquidDigestService service(*store, 1000ms, log_);
  service.start();
  ASSERT_TRUE(wait_for_builds(service, 1));
  const auto snapshot = service.current();
  ASSERT_TRUE(snapshot);
  const auto digest = decode(*snapshot);
  EXPECT_EQ(digest.header().count, static_cast<std::uint32_t>(kKeys));
  EXPECT_EQ(snapshot->entries, static_cast<std::uint32_t>(kKeys));
  for (int i = 0; i < kKeys; ++i) {
    EXPECT_TRUE(digest.contains(squid_key_of("http://example.com/k/" + std::to_string(i))));
  }
  const SquidDigestStats stats = service.stats();
  EXPECT_EQ(stats.entries, static_cast<std::uint32_t>(kKeys));
  EXPECT_EQ(stats.bytes, snapshot->body.size());
  EXPECT_EQ(stats.overruns, 0u);
  service.stop();
}

// A rebuild that finds the same keys serves the same bytes with the same
// Last-Modified (a Squid's If-Modified-Since then gets a true 304); a
// stored or removed key shows in the next build.
TEST_F(SquidDigestServiceTest, FollowsTheStoreOnItsInterval) {
  auto store = open_store(memory_options());
  ASSERT_TRUE(store);
  ASSERT_FALSE(store->insert(make_object(*store, "http://example.com/a", "a")));
  SquidDigestService service(*store, 1000ms, log_);
  service.start();
  ASSERT_TRUE(wait_for_builds(service, 1));
  const auto first = service.current();
  ASSERT_TRUE(wait_for_builds(service, 2));
  const auto second = service.current();
  EXPECT_EQ(second->body, first->body);
  EXPECT_EQ(second->last_modified, first->last_modified);
  EXPECT_GT(second->next_build, first->next_build);

  ASSERT_FALSE(store->insert(make_object(*store, "http://example.com/b", "b")));
  store->remove("http://example.com/a");
  // The build after the one that may have been under way meanwhile.
  ASSERT_TRUE(wait_for_builds(service, 4));
  const auto digest = decode(*service.current());
  EXPECT_TRUE(digest.contains(squid_key_of("http://example.com/b")));
  EXPECT_EQ(digest.header().count, 1u);
  service.stop();
}

// On demand (the admin's POST /squid-digest): a key stored after the first
// build is in the digest long before the hour-long interval ends.
TEST_F(SquidDigestServiceTest, RebuildsAtOnceWhenAsked) {
  auto store = open_store(memory_options());
  ASSERT_TRUE(store);
  SquidDigestService service(*store, std::chrono::hours(1), log_);
  service.start();
  ASSERT_TRUE(wait_for_builds(service, 1));
  ASSERT_FALSE(store->insert(make_object(*store, "http://example.com/late", "x")));
  EXPECT_FALSE(decode(*service.current()).contains(squid_key_of("http://example.com/late")));
  service.rebuild_now();
  ASSERT_TRUE(wait_for_builds(service, 2));
  EXPECT_TRUE(decode(*service.current()).contains(squid_key_of("http://example.com/late")));
  EXPECT_EQ(service.stats().requested, 1u);
  service.stop();
}

// Degraded path: asked before the first build -> 503, counted, logged once
// per second with the count held back.
TEST_F(SquidDigestServiceTest, AnswersAreCountedAndUnavailableIsLogged) {
  auto store = open_store(memory_options());
  ASSERT_TRUE(store);
  SquidDigestService service(*store, 1000ms, log_);  // not started: no digest yet
  EXPECT_FALSE(service.current());
  for (unsigned status : {200u, 200u, 304u, 405u, 503u, 503u, 503u}) service.note_answer(status);
  const SquidDigestStats s = service.stats();
  EXPECT_EQ(s.served, 2u);
  EXPECT_EQ(s.not_modified, 1u);
  EXPECT_EQ(s.refused, 1u);
  EXPECT_EQ(s.unavailable, 3u);
  std::this_thread::sleep_for(1100ms);
  service.note_answer(503);
  const std::string log = read_file(dir_.path() / "error.log");
  EXPECT_NE(log.find("squid digest: asked for before the first build, answered 503"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("(2 more since the last line)"), std::string::npos) << log;
}

}  // namespace
}  // namespace sumcache::daemon
