#include "filters/change_log.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

// One update's transitions: written to the staging area, then committed.
void transitions(ChangeLog& log, const std::vector<std::uint64_t>& positions) {
  std::uint64_t* out = log.stage(positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) out[i] = positions[i];
  log.commit(positions.size());
}

TEST(ChangeLog, LogsNothingBeforeTheFirstMark) {
  ChangeLog log(64, 32);
  transitions(log, {1, 2, 3});
  EXPECT_FALSE(log.logging());
  EXPECT_EQ(log.pending(), 33U);
  EXPECT_EQ(log.changed_since_mark().error(), FilterErrc::change_log_overflow);
  log.mark();
  EXPECT_TRUE(log.logging());
  EXPECT_TRUE(log.changed_since_mark()->empty());
}

TEST(ChangeLog, UncommittedCandidatesAreNotLogged) {
  ChangeLog log(64, 32);
  log.mark();
  std::uint64_t* out = log.stage(3);
  out[0] = 5;
  out[1] = 6;
  out[2] = 7;
  log.commit(1);
  EXPECT_EQ(log.changed_since_mark().value(), (std::vector<std::uint64_t>{5}));
}

// Many updates that nobody reads in between pass through the staging area
// several times; the positions toggled an odd number of times remain.
TEST(ChangeLog, UpdatesNobodyReadReachTheLogInOrder) {
  ChangeLog log(64, 10'000);
  log.mark();
  std::vector<std::uint64_t> expected;
  for (std::uint64_t u = 0; u < 100; ++u) {
    transitions(log, {3 * u, 3 * u + 1, 3 * u + 2});
    transitions(log, {3 * u + 1});  // flaps back
    expected.push_back(3 * u);
    expected.push_back(3 * u + 2);
  }
  ASSERT_GT(3 * 100U, ChangeLog::kStagedCap);
  EXPECT_EQ(log.pending(), expected.size());
  EXPECT_EQ(log.changed_since_mark().value(), expected);
}

// The cap holds per transition even when the transitions were staged: a
// flap at the cap stays within it, the next new position stops the log.
TEST(ChangeLog, OverflowsOnTheTransitionThatWouldPassTheCapWhileStaged) {
  ChangeLog log(64, 8);
  log.mark();
  transitions(log, {0, 1, 2, 3, 4, 5, 6, 7});
  transitions(log, {7, 7});
  EXPECT_TRUE(log.logging());
  EXPECT_EQ(log.pending(), 8U);
  transitions(log, {7, 7, 8, 7});
  EXPECT_FALSE(log.logging());
  EXPECT_EQ(log.pending(), 9U);
  EXPECT_EQ(log.memory_bytes(), 64 * sizeof(std::uint64_t));
  transitions(log, {9});
  EXPECT_EQ(log.pending(), 9U);
  log.mark();
  EXPECT_EQ(log.pending(), 0U);
}

TEST(ChangeLog, MarkDiscardsStagedTransitions) {
  ChangeLog log(64, 32);
  log.mark();
  transitions(log, {1, 2});
  log.mark();
  transitions(log, {3});
  EXPECT_EQ(log.changed_since_mark().value(), (std::vector<std::uint64_t>{3}));
}

}  // namespace
}  // namespace sumcache::filters
