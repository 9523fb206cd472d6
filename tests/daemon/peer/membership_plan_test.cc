#include "daemon/peer/membership_plan.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

using namespace std::chrono_literals;

config::PeerConfig peer(std::string id, std::string host, std::uint16_t http = 3128,
                        std::uint32_t weight = 1) {
  config::PeerConfig p;
  p.id = std::move(id);
  p.host = std::move(host);
  p.http_port = http;
  p.weight = weight;
  return p;
}

std::vector<Member> members(const std::vector<config::PeerConfig>& list,
                            PeerSource source = PeerSource::config) {
  std::vector<Member> out;
  for (const auto& p : list) out.push_back({p, source});
  return out;
}

TEST(MembershipPlan, AnUnchangedFileChangesNothing) {
  const std::vector before{peer("a", "10.0.0.1"), peer("b", "10.0.0.2")};
  EXPECT_TRUE(plan_reload(before, before, members(before)).empty());
}

TEST(MembershipPlan, AReloadAddsNewEntriesAndRemovesDroppedOnes) {
  const std::vector before{peer("a", "10.0.0.1"), peer("b", "10.0.0.2")};
  const std::vector after{peer("a", "10.0.0.1"), peer("c", "10.0.0.3")};
  const auto plan = plan_reload(before, after, members(before));
  EXPECT_EQ(plan.remove, std::vector<std::string>{"b"});
  ASSERT_EQ(plan.add.size(), 1U);
  EXPECT_EQ(plan.add[0].id, "c");
  EXPECT_TRUE(plan.reweight.empty());
}

TEST(MembershipPlan, AWeightChangeKeepsThePeerAndAnAddressChangeReplacesIt) {
  const std::vector before{peer("a", "10.0.0.1"), peer("b", "10.0.0.2")};
  const std::vector after{peer("a", "10.0.0.1", 3128, 5), peer("b", "10.0.0.9")};
  const auto plan = plan_reload(before, after, members(before));
  ASSERT_EQ(plan.reweight.size(), 1U);
  EXPECT_EQ(plan.reweight[0].id, "a");
  EXPECT_EQ(plan.reweight[0].weight, 5U);
  EXPECT_EQ(plan.remove, std::vector<std::string>{"b"});
  ASSERT_EQ(plan.add.size(), 1U);
  EXPECT_EQ(plan.add[0].host, "10.0.0.9");
}

TEST(MembershipPlan, TheAdminsChangesStayUntilTheFileChangesTheSameId) {
  const std::vector file{peer("a", "10.0.0.1"), peer("b", "10.0.0.2")};
  // The admin removed b and added d since the start.
  std::vector<Member> current = members({peer("a", "10.0.0.1")});
  current.push_back({peer("d", "10.0.0.4"), PeerSource::admin});
  EXPECT_TRUE(plan_reload(file, file, current).empty());
  // The file now names d itself, at another address: the file wins.
  std::vector after = file;
  after.push_back(peer("d", "10.0.0.44"));
  const auto plan = plan_reload(file, after, current);
  EXPECT_EQ(plan.remove, std::vector<std::string>{"d"});
  ASSERT_EQ(plan.add.size(), 1U);
  EXPECT_EQ(plan.add[0].host, "10.0.0.44");
  // The file drops b, which the admin removed already: nothing to do.
  EXPECT_TRUE(plan_reload(file, {peer("a", "10.0.0.1")}, current).empty());
}

TEST(MembershipPlan, AJoinIsCheckedAsTheConfigChecksPeers) {
  const auto current = members({peer("a", "10.0.0.1"), peer("b", "10.0.0.2")});
  EXPECT_FALSE(check_join(peer("c", "10.0.0.3"), "self", current, 64));
  const auto dup = check_join(peer("a", "10.0.0.9"), "self", current, 64);
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->status, 409U);
  EXPECT_NE(dup->reason.find("exists already"), std::string::npos);
  const auto same_place = check_join(peer("c", "10.0.0.2"), "self", current, 64);
  ASSERT_TRUE(same_place);
  EXPECT_EQ(same_place->status, 409U);
  const auto own = check_join(peer("self", "10.0.0.3"), "self", current, 64);
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 400U);
  const auto bad = check_join(peer("no spaces", "10.0.0.3"), "self", current, 64);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400U);
  const auto full = check_join(peer("c", "10.0.0.3"), "self", current, 2);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->status, 409U);
  EXPECT_NE(full->reason.find("full"), std::string::npos);
}

TEST(MembershipPlan, DiscoveryProbesNewAddressesOnceAndReportsGoneOnes) {
  const auto plan =
      plan_discovery({"10.0.0.1", "10.0.0.3", "10.0.0.3", "10.0.0.4"}, {"10.0.0.1", "10.0.0.2"});
  EXPECT_EQ(plan.probe, (std::vector<std::string>{"10.0.0.3", "10.0.0.4"}));
  EXPECT_EQ(plan.gone, std::vector<std::string>{"10.0.0.2"});
  EXPECT_TRUE(plan_discovery({}, {}).probe.empty());
}

TEST(MembershipPlan, AHostsFileGivesTheAddressesOfTheNameOnly) {
  const std::string text =
      "# peers\n"
      "127.0.0.20 sumcache.test other\n"
      "127.0.0.21\tSUMCACHE.test  # upper case is the same name\n"
      "127.0.0.22 elsewhere.test\n"
      "not-an-address sumcache.test\n"
      "::1 sumcache.test\n"
      "127.0.0.20 sumcache.test\n"
      "127.0.0.23\n"
      "127.0.0.24 sumcache.test";  // no final newline
  EXPECT_EQ(hosts_file_addresses(text, "sumcache.test"),
            (std::vector<std::string>{"127.0.0.20", "127.0.0.21", "::1", "127.0.0.24"}));
  EXPECT_TRUE(hosts_file_addresses("", "sumcache.test").empty());
  EXPECT_TRUE(hosts_file_addresses("# 127.0.0.1 sumcache.test\n", "sumcache.test").empty());
}

TEST(MembershipPlan, GraceIsOverOnlyAfterItsLengthAndNeverWhenZero) {
  const auto t = std::chrono::steady_clock::now();
  EXPECT_FALSE(past_grace(t, t + 999ms, 1000ms));
  EXPECT_TRUE(past_grace(t, t + 1000ms, 1000ms));
  EXPECT_FALSE(past_grace(t, t + 24h, 0ms));
}

}  // namespace
}  // namespace sumcache::daemon
