// One updater thread replacing, patching and clearing fingerprint summaries
// (peers joining and leaving a shared table, so the peer bits change) while
// reader threads call claims(): a key that every version of a slot's summary
// holds is never missed, and while no set() of the exact slot is under way
// its answer is exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "filters/fingerprint_directory.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

using sumcache::testing::url_key;
using Fps = std::vector<std::uint64_t>;

constexpr std::uint64_t kU = 1'000'003;
constexpr std::uint64_t kOtherU = 2'000'003;
constexpr std::uint64_t kCoreKeys = 100;
constexpr int kWriterRounds = 300;
constexpr int kMinReads = 2000;        // per reader, even once the writer is done
constexpr int kMaxReads = 5'000'000;   // per reader: bounds the test if the writer stalls
constexpr unsigned kMoving = 0;        // set() each round, alternating universes
constexpr unsigned kPatched = 1;       // apply() each round
constexpr unsigned kFixed = 2;         // set once
constexpr unsigned kExact = 3;         // alternately holds the probe key and nothing
constexpr unsigned kFirstToggled = 4;  // slots 4..40 join and leave kU's table
constexpr std::uint64_t kAlwaysClaimed = (1U << kMoving) | (1U << kPatched) | (1U << kFixed);
const std::string kProbeKey = "http://probe.example/";

// The core keys plus 50 keys that differ per round, as fingerprints in u.
Fps version(std::uint64_t u, std::uint64_t extras_base) {
  Fps fps;
  for (std::uint64_t i = 0; i < kCoreKeys; ++i) fps.push_back(fingerprint(Hasher{}(url_key(i)), u));
  for (std::uint64_t i = 0; i < 50; ++i) {
    fps.push_back(fingerprint(Hasher{}(url_key(extras_base + i)), u));
  }
  std::sort(fps.begin(), fps.end());
  return fps;
}

bool exact_holds_probe(std::uint64_t generation) {
  return generation != 0 && (generation / 2 - 1) % 2 == 1;
}

struct Shared {
  FingerprintDirectory dir;
  std::atomic<std::uint64_t> generation{0};  // odd while kExact's set() runs
  std::atomic<bool> writer_done{false};
  std::atomic<std::uint64_t> missed{0};
  std::atomic<std::uint64_t> wrong_exact{0};
  std::atomic<std::uint64_t> exact_checks{0};
};

// Ranks of `from`'s elements not kept in `to`, and `to`'s elements not from `from`.
void delta(const Fps& from, const Fps& to, Fps& removed, Fps& added) {
  removed.clear();
  added.clear();
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < from.size() || j < to.size()) {
    if (j == to.size() || (i < from.size() && from[i] < to[j])) {
      removed.push_back(i++);
    } else if (i == from.size() || to[j] < from[i]) {
      added.push_back(to[j++]);
    } else {
      ++i;
      ++j;
    }
  }
}

void write_rounds(Shared& s) {
  Fps patched = version(kU, 20'000);
  Fps removed;
  Fps added;
  for (int round = 0; round < kWriterRounds; ++round) {
    const std::uint64_t extras = 100'000 + static_cast<std::uint64_t>(round) * 50;
    const std::uint64_t u = round % 2 == 0 ? kOtherU : kU;
    EXPECT_FALSE(s.dir.set(kMoving, u, version(u, extras)));
    const Fps next = version(kU, extras + 50'000);
    delta(patched, next, removed, added);
    EXPECT_FALSE(s.dir.apply(kPatched, removed, added));
    patched = next;
    const unsigned toggled = kFirstToggled + static_cast<unsigned>(round) % 37;
    if (round % 74 < 37) {
      EXPECT_FALSE(s.dir.set(toggled, kU, version(kU, extras)));
    } else {
      s.dir.clear(toggled);
    }
    Fps exact;
    if (round % 2 == 1) exact.push_back(fingerprint(Hasher{}(kProbeKey), kU));
    s.generation.fetch_add(1);  // acquire: the set() below cannot move above it
    EXPECT_FALSE(s.dir.set(kExact, kU, exact));
    s.generation.fetch_add(1, std::memory_order_release);
  }
  s.writer_done.store(true);
}

void read_until_done(Shared& s, const std::vector<Hash128>& core, const Hash128& probe) {
  for (int i = 0; i < kMaxReads && (i < kMinReads || !s.writer_done.load()); ++i) {
    const Hash128& h = core[static_cast<std::size_t>(i) % core.size()];
    if ((s.dir.claims(h) & kAlwaysClaimed) != kAlwaysClaimed) s.missed.fetch_add(1);
    // Seqlock read, as in summary_directory_threads_test.cc.
    const std::uint64_t before = s.generation.load(std::memory_order_acquire);
    const bool claimed = (s.dir.claims(probe, 1U << kExact) != 0);
    const std::uint64_t after = s.generation.fetch_add(0);
    if (before != after || before % 2 != 0) continue;
    s.exact_checks.fetch_add(1);
    if (claimed != exact_holds_probe(before)) s.wrong_exact.fetch_add(1);
  }
}

TEST(FingerprintDirectoryThreads, ReadersNeverMissAKeyThatEveryVersionHolds) {
  Shared s;
  ASSERT_FALSE(s.dir.set(kFixed, kU, version(kU, 30'000)));
  ASSERT_FALSE(s.dir.set(kMoving, kU, version(kU, 40'000)));
  ASSERT_FALSE(s.dir.set(kPatched, kU, version(kU, 20'000)));
  ASSERT_FALSE(s.dir.set(kExact, kU, {}));
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
  EXPECT_EQ(s.dir.universe_of(kMoving), kU);  // the last round (299) used kU
}

}  // namespace
}  // namespace sumcache::filters
