#include "protocol/reject_counters.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "filters/filter_error.h"
#include "protocol/protocol_error.h"

namespace sumcache::protocol {
namespace {

TEST(RejectCounters, CountsEachReasonApart) {
  RejectCounters counters;
  counters.record(ProtocolErrc::bad_tag);
  counters.record(ProtocolErrc::bad_tag);
  counters.record(ProtocolErrc::sequence_gap);
  counters.record({});
  counters.record(filters::FilterErrc::truncated);
  EXPECT_EQ(counters.count(ProtocolErrc::bad_tag), 2U);
  EXPECT_EQ(counters.count(ProtocolErrc::sequence_gap), 1U);
  EXPECT_EQ(counters.count(ProtocolErrc::truncated), 0U);
  EXPECT_EQ(counters.other(), 1U);
  EXPECT_EQ(counters.total(), 4U);
}

TEST(ProtocolError, EveryReasonHasItsOwnLogMessage) {
  std::set<std::string> seen;
  for (int e = 1; e < static_cast<int>(RejectCounters::kReasons); ++e) {
    const std::string text = make_error_code(static_cast<ProtocolErrc>(e)).message();
    EXPECT_NE(text, "unknown protocol error") << e;
    EXPECT_TRUE(seen.insert(text).second) << text;
  }
  EXPECT_STREQ(protocol_category().name(), "sumcache.protocol");
}

}  // namespace
}  // namespace sumcache::protocol
