#include "daemon/http/range.h"

#include <gtest/gtest.h>

#include "tests/daemon/http/http_test_times.h"

namespace sumcache::daemon {
namespace {

using testing::at;
using testing::date_at;

void expect_partial(const RangeDecision& d, std::uint64_t first, std::uint64_t last,
                    std::string_view content_range) {
  EXPECT_EQ(d.outcome, RangeOutcome::partial);
  EXPECT_EQ(d.range, (ByteRange{first, last}));
  EXPECT_EQ(d.content_range, content_range);
}

// RFC 9110 §14.1.2: the three forms of a byte range.
TEST(Range, ByteRangeForms_Rfc9110_14_1_2) {
  expect_partial(apply_range("bytes=0-499", 10000), 0, 499, "bytes 0-499/10000");
  expect_partial(apply_range("bytes=500-999", 10000), 500, 999, "bytes 500-999/10000");
  expect_partial(apply_range("bytes=9500-", 10000), 9500, 9999, "bytes 9500-9999/10000");
  expect_partial(apply_range("bytes=-500", 10000), 9500, 9999, "bytes 9500-9999/10000");
  expect_partial(apply_range("bytes=0-0", 1), 0, 0, "bytes 0-0/1");
}

// RFC 9110 §14.1.1: a last position past the end means the end; a suffix
// longer than the representation means all of it.
TEST(Range, RangesAreCutToTheRepresentation_Rfc9110_14_1_1) {
  expect_partial(apply_range("bytes=100-99999", 1000), 100, 999, "bytes 100-999/1000");
  expect_partial(apply_range("bytes=-5000", 1000), 0, 999, "bytes 0-999/1000");
  expect_partial(apply_range("bytes=999-", 1000), 999, 999, "bytes 999-999/1000");
}

// RFC 9110 §14.1.1 / §15.5.17: first position at or past the end, or a zero
// suffix, is unsatisfiable: 416 with "bytes */length".
TEST(Range, UnsatisfiableRangesGive416_Rfc9110_15_5_17) {
  for (std::string_view range : {"bytes=1000-", "bytes=1000-2000", "bytes=5000-6000", "bytes=-0"}) {
    const RangeDecision d = apply_range(range, 1000);
    EXPECT_EQ(d.outcome, RangeOutcome::not_satisfiable) << range;
    EXPECT_EQ(d.content_range, "bytes */1000") << range;
  }
}

// A zero-length representation has no byte to start at; a suffix range asks
// for "the entire representation" (§14.1.1), which is the empty 200.
// RFC 9110 §14.2: Range is evaluated only where the answer would be a 200.
TEST(Range, RangesApplyOnlyToA200_Rfc9110_14_2) {
  EXPECT_TRUE(ranges_apply(200));
  EXPECT_FALSE(ranges_apply(203));
  EXPECT_FALSE(ranges_apply(404));
  EXPECT_FALSE(ranges_apply(301));
}

TEST(Range, ZeroLengthRepresentation) {
  const RangeDecision int_range = apply_range("bytes=0-", 0);
  EXPECT_EQ(int_range.outcome, RangeOutcome::not_satisfiable);
  EXPECT_EQ(int_range.content_range, "bytes */0");
  EXPECT_EQ(apply_range("bytes=-10", 0).outcome, RangeOutcome::full);
}

// RFC 9110 §14.2: a server MAY ignore Range; we do for several ranges.
TEST(Range, MultipleRangesServeTheFullResponse_Rfc9110_14_2) {
  EXPECT_EQ(apply_range("bytes=0-1, 5-6", 100).outcome, RangeOutcome::full);
  EXPECT_EQ(apply_range("bytes=0-1,-5", 100).outcome, RangeOutcome::full);
  EXPECT_EQ(apply_range("bytes=5000-6000, 7000-", 100).outcome, RangeOutcome::full);
}

// RFC 9110 §14.1.1: an invalid range-set makes the whole field invalid, and
// an invalid Range is ignored (§14.2).
TEST(Range, InvalidRangeIsIgnored_Rfc9110_14_2) {
  for (std::string_view range :
       {"", "bytes", "bytes=", "bytes=-", "bytes=abc", "bytes=5-4", "bytes=1-2-3", "bytes=-1-2",
        "bytes=+1-2", "bytes= 1 -2", "items=0-1", "0-1", "bytes=99999999999999999999-",
        "bytes=0-99999999999999999999", "bytes=--1"}) {
    EXPECT_EQ(apply_range(range, 100).outcome, RangeOutcome::full) << range;
  }
}

// RFC 9110 §14.1: the unit is case-insensitive; list syntax allows OWS.
TEST(Range, UnitIsCaseInsensitiveAndOwsAllowed) {
  expect_partial(apply_range("Bytes=0-9", 100), 0, 9, "bytes 0-9/100");
  expect_partial(apply_range(" bytes= 0-9 ,", 100), 0, 9, "bytes 0-9/100");
}

// RFC 9110 §14.2: Range applies to GET only.
TEST(Range, OnlyGetRequestsAreRanged) {
  const HeaderList request = {{"Range", "bytes=0-9"}};
  EXPECT_EQ(decide_range("GET", request, {}, 100, at(0)).outcome, RangeOutcome::partial);
  EXPECT_EQ(decide_range("HEAD", request, {}, 100, at(0)).outcome, RangeOutcome::full);
  EXPECT_EQ(decide_range("GET", {}, {}, 100, at(0)).outcome, RangeOutcome::full);
  EXPECT_EQ(
      decide_range("GET", {{"Range", "bytes=0-1"}, {"Range", "bytes=5-6"}}, {}, 100, at(0)).outcome,
      RangeOutcome::full);
}

// RFC 9110 §13.1.5: an entity-tag If-Range needs a strong match.
TEST(Range, IfRangeEntityTagNeedsStrongMatch_Rfc9110_13_1_5) {
  const HeaderList strong = {{"ETag", R"("v1")"}};
  const auto ranged = [](std::string_view if_range, const HeaderList& stored) {
    const HeaderList request = {{"Range", "bytes=0-9"}, {"If-Range", std::string(if_range)}};
    return decide_range("GET", request, stored, 100, at(0)).outcome;
  };
  EXPECT_EQ(ranged(R"("v1")", strong), RangeOutcome::partial);
  EXPECT_EQ(ranged(R"("v2")", strong), RangeOutcome::full);
  EXPECT_EQ(ranged(R"(W/"v1")", strong), RangeOutcome::full);
  EXPECT_EQ(ranged(R"("v1")", {{"ETag", R"(W/"v1")"}}), RangeOutcome::full);
  EXPECT_EQ(ranged(R"("v1")", {}), RangeOutcome::full);
}

// RFC 9110 §13.1.5 and §8.8.2.2: a date If-Range matches Last-Modified
// exactly, and only when Last-Modified is at least 60 s older than Date.
TEST(Range, IfRangeDateNeedsExactStrongLastModified_Rfc9110_13_1_5) {
  const auto ranged = [](std::string_view if_range, std::int64_t last_modified) {
    const HeaderList request = {{"Range", "bytes=0-9"}, {"If-Range", std::string(if_range)}};
    const HeaderList stored = {{"Date", date_at(0)}, {"Last-Modified", date_at(last_modified)}};
    return decide_range("GET", request, stored, 100, at(0)).outcome;
  };
  EXPECT_EQ(ranged(date_at(-60), -60), RangeOutcome::partial);
  EXPECT_EQ(ranged(date_at(-30), -30), RangeOutcome::full);    // weak: too close to Date
  EXPECT_EQ(ranged(date_at(-100), -120), RangeOutcome::full);  // later is not equal
  EXPECT_EQ(ranged(date_at(-120), -100), RangeOutcome::full);
  EXPECT_EQ(ranged("yesterday", -100), RangeOutcome::full);
}

}  // namespace
}  // namespace sumcache::daemon
