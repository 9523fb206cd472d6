#include "daemon/peer/redis_bus_plan.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

using namespace std::chrono_literals;

RedisReply str(std::string s) {
  RedisReply r;
  r.type = RedisReply::Type::string;
  r.str = std::move(s);
  return r;
}

RedisReply arr(std::vector<RedisReply> elements) {
  RedisReply r;
  r.type = RedisReply::Type::array;
  r.elements = std::move(elements);
  return r;
}

RedisReply integer(long long v) {
  RedisReply r;
  r.type = RedisReply::Type::integer;
  r.integer = v;
  return r;
}

std::string signed_record(const std::string& id, std::uint64_t epoch = 7,
                          const std::string& secret = "s3cret") {
  return *encode_member({id, "127.0.0.1", 3128, 3130, 3131, 3132, 1, epoch}, secret);
}

TEST(RedisBusPlan, HashPairsAreEvenArraysOfStrings) {
  const auto pairs = hash_pairs(arr({str("a"), str("1"), str("b"), str("2")}));
  ASSERT_TRUE(pairs);
  EXPECT_EQ(*pairs, (RedisPairs{{"a", "1"}, {"b", "2"}}));
  EXPECT_TRUE(hash_pairs(arr({})));
  EXPECT_FALSE(hash_pairs(arr({str("a")})));
  EXPECT_FALSE(hash_pairs(arr({str("a"), integer(1)})));
  EXPECT_FALSE(hash_pairs(str("a")));
  EXPECT_FALSE(hash_pairs(RedisReply{}));
}

TEST(RedisBusPlan, TimeIsSecondsAndMicroseconds) {
  EXPECT_EQ(time_ms(arr({str("1732475000"), str("123456")})), 1732475000123);
  EXPECT_EQ(time_ms(arr({str("0"), str("999")})), 0);
  EXPECT_FALSE(time_ms(arr({str("1732475000"), str("1234567")})));
  EXPECT_FALSE(time_ms(arr({str("-1"), str("0")})));
  EXPECT_FALSE(time_ms(arr({str("1732475000")})));
  EXPECT_FALSE(time_ms(arr({integer(1), integer(2)})));
  EXPECT_FALSE(time_ms(arr({str(""), str("0")})));
}

TEST(RedisBusPlan, LiveMembersAreVerifiedAndWithinExpiry) {
  RedisMembershipInput in;
  in.self = "a";
  in.secret = "s3cret";
  in.now_ms = 100000;
  in.expiry = 5s;
  in.members = {{"a", signed_record("a")}, {"b", signed_record("b")}, {"c", signed_record("c")}};
  in.seen = {{"a", "100000"}, {"b", "95000"}, {"c", "94999"}};
  const RedisMembershipPlan plan = plan_redis_membership(in);
  ASSERT_EQ(plan.live.size(), 1U);
  EXPECT_EQ(plan.live[0].id, "b");  // exactly at the expiry: still live
  EXPECT_EQ(plan.reap, (std::vector<RedisReap>{{"c", "94999"}}));
  EXPECT_TRUE(plan.refused.empty());
}

TEST(RedisBusPlan, ThisNodeIsNeitherAPeerNorReaped) {
  RedisMembershipInput in;
  in.self = "a";
  in.secret = "s3cret";
  in.now_ms = 100000;
  in.members = {{"a", signed_record("a")}};
  in.seen = {{"a", "1"}};
  const RedisMembershipPlan plan = plan_redis_membership(in);
  EXPECT_TRUE(plan.live.empty());
  EXPECT_TRUE(plan.reap.empty());
}

TEST(RedisBusPlan, HalfWrittenMembersAreReaped) {
  RedisMembershipInput in;
  in.self = "a";
  in.secret = "s3cret";
  in.now_ms = 100000;
  in.members = {{"b", signed_record("b")}, {"d", signed_record("d")}};
  in.seen = {{"c", "1"}, {"d", "soon"}, {"e", "99999"}};
  const RedisMembershipPlan plan = plan_redis_membership(in);
  EXPECT_TRUE(plan.live.empty());
  // b: no seen; d: a seen that is no time; c: a stale seen without a record.
  // e heartbeats without a record yet (a reap raced it): it stays.
  EXPECT_EQ(plan.reap, (std::vector<RedisReap>{{"b", ""}, {"d", "soon"}, {"c", "1"}}));
}

TEST(RedisBusPlan, ForgedAndMalformedRecordsAreRefusedWithTheirReason) {
  RedisMembershipInput in;
  in.self = "a";
  in.secret = "s3cret";
  in.now_ms = 100000;
  in.members = {{"b", signed_record("b", 7, "not-the-secret")},
                {"c", "{\"id\":\"c\"}"},
                {"d", signed_record("e")}};
  in.seen = {{"b", "100000"}, {"c", "100000"}, {"d", "100000"}};
  const RedisMembershipPlan plan = plan_redis_membership(in);
  EXPECT_TRUE(plan.live.empty());
  EXPECT_TRUE(plan.reap.empty());
  ASSERT_EQ(plan.refused.size(), 3U);
  EXPECT_EQ(plan.refused[0].id, "b");
  EXPECT_EQ(plan.refused[0].reason, RedisRefusal::member_bad_tag);
  EXPECT_EQ(plan.refused[1].reason, RedisRefusal::member_malformed);
  EXPECT_EQ(plan.refused[2].reason, RedisRefusal::member_malformed);  // under another id
}

RedisReply entry(std::string id, std::vector<RedisReply> fields) {
  return arr({str(std::move(id)), arr(std::move(fields))});
}

const std::map<std::string, std::string> kStreams = {{"p:node:b:deltas", "b"},
                                                      {"p:node:c:deltas", "c"}};

TEST(RedisBusPlan, XreadNilIsNoEntry) {
  const RedisXread x = parse_xread(RedisReply{}, kStreams);
  EXPECT_TRUE(x.error.empty());
  EXPECT_TRUE(x.entries.empty());
}

TEST(RedisBusPlan, XreadGivesEachEntryWithItsStreamsNode) {
  RedisReply reply = arr({
      arr({str("p:node:b:deltas"), arr({entry("4-0", {str("m"), str("four")}),
                                          entry("5-0", {str("m"), str("five")})})}),
      arr({str("p:node:c:deltas"), arr({entry("9-0", {str("m"), str("nine")})})}),
  });
  const RedisXread x = parse_xread(std::move(reply), kStreams);
  ASSERT_TRUE(x.error.empty()) << x.error;
  ASSERT_EQ(x.entries.size(), 3U);
  EXPECT_EQ(x.entries[0].node, "b");
  EXPECT_EQ(x.entries[0].sequence, 4U);
  EXPECT_EQ(x.entries[0].message, "four");
  EXPECT_EQ(x.entries[1].sequence, 5U);
  EXPECT_EQ(x.entries[2].node, "c");
  EXPECT_EQ(x.entries[2].id, "9-0");
  EXPECT_EQ(x.entries[2].message, "nine");
}

// A writer other than the node (redis-cli XADD ... * m x): refused, and
// read past (its ID kept as the cursor), not retried forever.
TEST(RedisBusPlan, XreadRefusesEntriesNotAsWrittenOnTheirOwn) {
  RedisReply reply = arr({arr({str("p:node:b:deltas"),
                               arr({entry("1732475000123-0", {str("m"), str("x")}),
                                    entry("6-1", {str("m"), str("x")}),
                                    entry("7-0", {str("m"), str("x"), str("n"), str("y")}),
                                    entry("8-0", {str("x"), str("x")}),
                                    arr({str("9-0"), RedisReply{}}),
                                    entry("10-0", {str("m"), str("ten")})})})});
  const RedisXread x = parse_xread(std::move(reply), kStreams);
  ASSERT_TRUE(x.error.empty()) << x.error;
  ASSERT_EQ(x.entries.size(), 6U);
  // 1732475000123-0 parses: an ID in the future of the node's, refused when applied.
  EXPECT_EQ(x.entries[0].sequence, 1732475000123U);
  for (std::size_t i = 1; i < 5; ++i) {
    EXPECT_FALSE(x.entries[i].sequence) << i;
    EXPECT_FALSE(x.entries[i].why.empty());
  }
  EXPECT_EQ(x.entries[1].id, "6-1");
  EXPECT_EQ(x.entries[5].sequence, 10U);
}

TEST(RedisBusPlan, XreadOfTheWrongShapeIsAnError) {
  std::vector<RedisReply> bad;
  bad.push_back(str("x"));
  bad.push_back(arr({str("p:node:b:deltas")}));
  bad.push_back(arr({arr({str("p:node:z:deltas"), arr({})})}));  // not asked for
  bad.push_back(arr({arr({str("p:node:b:deltas"), str("entries")})}));
  bad.push_back(arr({arr({str("p:node:b:deltas"), arr({str("4-0")})})}));
  bad.push_back(arr({arr({str("p:node:b:deltas"), arr({arr({integer(4), arr({})})})})}));
  bad.push_back(arr({arr({str("p:node:b:deltas"), arr({arr({str("4-0"), str("m")})})})}));
  for (RedisReply& r : bad) {
    const RedisXread x = parse_xread(std::move(r), kStreams);
    EXPECT_FALSE(x.error.empty());
    EXPECT_TRUE(x.entries.empty());
  }
}

TEST(RedisBusPlan, TheFullIsRewrittenWhenStale) {
  EXPECT_TRUE(redis_full_due({true, 0}, 1, 256));
  EXPECT_TRUE(redis_full_due({true, 40}, 41, 256));
  EXPECT_FALSE(redis_full_due({false, 40}, 41, 256));
}

TEST(RedisBusPlan, TheFullIsRewrittenBeforeTheStreamStopsReachingIt) {
  EXPECT_FALSE(redis_full_due({false, 40}, 40 + 127, 256));
  EXPECT_TRUE(redis_full_due({false, 40}, 40 + 128, 256));
  EXPECT_TRUE(redis_full_due({false, 40}, 39, 256));  // behind the full: start over
  EXPECT_TRUE(redis_full_due({false, 40}, 41, 1));    // a stream of one reaches back to nothing
  EXPECT_FALSE(redis_full_due({false, 40}, 41, 4));
}

}  // namespace
}  // namespace sumcache::daemon
