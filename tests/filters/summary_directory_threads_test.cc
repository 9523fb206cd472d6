// One updater thread replacing, patching and clearing summaries while reader
// threads call claims(): a key that every version of a slot's summary holds
// is never missed, and while no set() is under way a slot's answer is exact.
// Meant for the sanitizer builds (ThreadSanitizer checks the publication).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "filters/summary_directory.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

using sumcache::testing::url_key;

constexpr BloomParams kA{4800, 4};
constexpr BloomParams kB{6000, 4};
constexpr std::uint64_t kCoreKeys = 100;
constexpr int kWriterRounds = 300;
constexpr int kMinReads = 2000;       // per reader, even once the writer is done
constexpr int kMaxReads = 5'000'000;  // per reader: bounds the test if the writer stalls
constexpr unsigned kMoving = 0;       // set() each round, alternating params
constexpr unsigned kPatched = 1;      // apply() each round
constexpr unsigned kFixed = 2;        // set once
constexpr unsigned kToggled = 3;      // set or cleared each round
constexpr unsigned kExact = 4;        // alternately holds the probe key and nothing
constexpr std::uint64_t kAlwaysClaimed = (1U << kMoving) | (1U << kPatched) | (1U << kFixed);
const std::string kProbeKey = "http://probe.example/";

// The core keys plus 50 keys that differ per round.
BloomFilter version(BloomParams params, std::uint64_t extras_base) {
  BloomFilter f = std::move(BloomFilter::create(params)).value();
  for (std::uint64_t i = 0; i < kCoreKeys; ++i) f.add(url_key(i));
  for (std::uint64_t i = 0; i < 50; ++i) f.add(url_key(extras_base + i));
  return f;
}

std::vector<BitChange> delta(const BloomFilter& from, const BloomFilter& to) {
  std::vector<BitChange> changes;
  for (std::uint64_t b = 0; b < from.params().m; ++b) {
    if (from.test_bit(b) != to.test_bit(b)) changes.push_back({b, to.test_bit(b)});
  }
  return changes;
}

// Which summary slot kExact holds while `generation` (even) is current.
bool exact_holds_probe(std::uint64_t generation) {
  return generation != 0 && (generation / 2 - 1) % 2 == 1;
}

struct Shared {
  SummaryDirectory dir;
  std::atomic<std::uint64_t> generation{0};  // odd while kExact's set() runs
  std::atomic<bool> writer_done{false};
  std::atomic<std::uint64_t> missed{0};
  std::atomic<std::uint64_t> wrong_exact{0};
  std::atomic<std::uint64_t> exact_checks{0};
};

constexpr std::uint64_t kPatchedFirst = 20'000;

void write_rounds(Shared& s) {
  BloomFilter patched = version(kA, kPatchedFirst);  // as the test set it
  for (int round = 0; round < kWriterRounds; ++round) {
    const std::uint64_t extras = 100'000 + static_cast<std::uint64_t>(round) * 50;
    EXPECT_FALSE(s.dir.set(kMoving, version(round % 2 == 0 ? kB : kA, extras)));
    const BloomFilter next = version(kA, extras + 50'000);
    EXPECT_FALSE(s.dir.apply(kPatched, delta(patched, next)));
    patched = next;
    if (round % 3 == 0) {
      s.dir.clear(kToggled);
    } else {
      EXPECT_FALSE(s.dir.set(kToggled, version(kB, extras)));
    }
    BloomFilter exact = std::move(BloomFilter::create(round % 2 == 0 ? kB : kA)).value();
    if (round % 2 == 1) exact.add(kProbeKey);
    s.generation.fetch_add(1);  // acquire: the set() below cannot move above it
    EXPECT_FALSE(s.dir.set(kExact, exact));
    s.generation.fetch_add(1, std::memory_order_release);
  }
  s.writer_done.store(true);
}

void read_until_done(Shared& s, const std::vector<Hash128>& core, const Hash128& probe) {
  for (int i = 0; i < kMaxReads && (i < kMinReads || !s.writer_done.load()); ++i) {
    const Hash128& h = core[static_cast<std::size_t>(i) % core.size()];
    if ((s.dir.claims(h) & kAlwaysClaimed) != kAlwaysClaimed) s.missed.fetch_add(1);

    // Seqlock read: the answer counts only if no set() of kExact overlapped it.
    // The second read is a release RMW rather than a fence (Boehm, "Can seqlocks
    // get along with programming language memory models?", 2012), which GCC's
    // ThreadSanitizer does not support.
    const std::uint64_t before = s.generation.load(std::memory_order_acquire);
    const bool claimed = (s.dir.claims(probe, 1U << kExact) != 0);
    const std::uint64_t after = s.generation.fetch_add(0);
    if (before != after || before % 2 != 0) continue;
    s.exact_checks.fetch_add(1);
    if (claimed != exact_holds_probe(before)) s.wrong_exact.fetch_add(1);
  }
}

TEST(SummaryDirectoryThreads, ReadersNeverMissAKeyThatEveryVersionHolds) {
  Shared s;
  ASSERT_FALSE(s.dir.set(kFixed, version(kA, 30'000)));
  ASSERT_FALSE(s.dir.set(kMoving, version(kA, 40'000)));
  ASSERT_FALSE(s.dir.set(kPatched, version(kA, kPatchedFirst)));
  ASSERT_FALSE(s.dir.set(kExact, std::move(BloomFilter::create(kA)).value()));
  std::vector<Hash128> core;
  for (std::uint64_t i = 0; i < kCoreKeys; ++i) core.push_back(Hasher{}(url_key(i)));
  const Hash128 probe = Hasher{}(kProbeKey);

  std::vector<std::thread> readers;
  readers.reserve(3);
  for (int r = 0; r < 3; ++r) readers.emplace_back([&] { read_until_done(s, core, probe); });
  std::thread writer([&] { write_rounds(s); });
  writer.join();
  for (std::thread& t : readers) t.join();

  EXPECT_EQ(s.missed.load(), 0U);
  EXPECT_EQ(s.wrong_exact.load(), 0U);
  EXPECT_GT(s.exact_checks.load(), 0U);
  EXPECT_EQ(s.dir.params_of(kMoving), kA);  // the last round (299) used kA
  EXPECT_EQ(s.dir.memory_bytes(), (kA.m + kB.m) * 8);
}

}  // namespace
}  // namespace sumcache::filters
