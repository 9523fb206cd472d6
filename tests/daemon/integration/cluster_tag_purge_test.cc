// Tag and prefix purges across a cluster (docs/peers.md, "Cluster-wide
// invalidation"): three real sumcached nodes and a real origin on loopback.
// A purge by Surrogate-Key tag or by URL prefix at one node removes exactly
// what it names on every node; no node hands a purged copy back; clients
// never see the tag field.

#include <nlohmann/json.hpp>
#include <thread>

#include "tests/daemon/integration/cluster_fixture.h"
#include "tests/support/ports.h"

namespace sumcache::testing {
namespace {

using Json = nlohmann::json;

class ClusterTagPurge : public ClusterTest {
 protected:
  ClientResponse purge_at(std::size_t node, const Json& body) {
    return admin(node, "/purge", "POST", body.dump(), true);
  }

  // Fetched at node-a from the origin, then at node-b and node-c from node-a:
  // every node holds each path, the peers' copies with their tags.
  void spread(const std::vector<std::string>& paths) {
    for (const auto& p : paths) ASSERT_EQ(x_cache(fetch(0, p)), "MISS") << p;
    ASSERT_TRUE(wait_for_deliveries(0, 1));
    ASSERT_TRUE(wait_for_deliveries(0, 2));
    for (std::size_t n = 1; n < 3; ++n) {
      for (const auto& p : paths) ASSERT_EQ(x_cache(fetch(n, p)), "PEER-HIT") << n << " " << p;
    }
    for (std::size_t n = 0; n < 3; ++n) {
      for (const auto& p : paths) ASSERT_EQ(local_status(n, p), 200U) << n << " " << p;
    }
  }
};

const std::string kRed = "/obj/tagged-red?max_age=600&size=3000&surrogate_key=red%20shared";
const std::string kRedToo = "/obj/tagged-red-too?max_age=600&size=2000&surrogate_key=shared%20red";
const std::string kBlue = "/obj/tagged-blue?max_age=600&size=2500&surrogate_key=blue%20shared";
const std::string kPlain = "/obj/untagged?max_age=600&size=1500";

TEST_F(ClusterTagPurge, ATagPurgeAtOneNodeRemovesEveryObjectWithTheTagOnEveryNode) {
  ASSERT_TRUE(start_cluster({}));
  spread({kRed, kRedToo, kBlue, kPlain});

  const auto purged = purge_at(0, {{"tag", "red"}});
  ASSERT_EQ(purged.status, 200U) << purged.body << log_of(0);
  const Json answer = Json::parse(purged.body, nullptr, false);
  ASSERT_FALSE(answer.is_discarded()) << purged.body;
  EXPECT_EQ(answer["purged"], 2) << purged.body;
  EXPECT_EQ(answer["tag"], "red") << purged.body;
  EXPECT_EQ(answer["nodes"], (Json{{"acked", 3}, {"total", 3}, {"pending", Json::array()}}))
      << purged.body;

  // Every node acknowledged, so every node applied it: the red ones went
  // everywhere (node-b and node-c indexed the tags of their peer copies).
  for (std::size_t n = 0; n < 3; ++n) {
    EXPECT_EQ(local_status(n, kRed), 504U) << nodes_[n].id;
    EXPECT_EQ(local_status(n, kRedToo), 504U) << nodes_[n].id;
    EXPECT_EQ(local_status(n, kBlue), 200U) << nodes_[n].id;
    EXPECT_EQ(local_status(n, kPlain), 200U) << nodes_[n].id;
  }
  const auto again = fetch(0, kRed);
  EXPECT_EQ(again.status, 200U);
  EXPECT_EQ(x_cache(again), "MISS");
  EXPECT_EQ(origin_.log().count("/obj/tagged-red"), 2U);
  EXPECT_EQ(origin_.log().count("/obj/tagged-blue"), 1U);
  EXPECT_NE(admin(1, "/metrics").body.find("sumcache_invalidations_received_total 1"),
            std::string::npos);
}

TEST_F(ClusterTagPurge, PurgeMethodWithTheTagFieldPurgesByTag) {
  ASSERT_TRUE(start_cluster({}));
  spread({kRed, kBlue});
  // Fastly / Varnish xkey style: PURGE with Surrogate-Key on the proxy port.
  const auto purged = fetch(0, "/anything", {{"Surrogate-Key", "blue"}}, "PURGE");
  ASSERT_EQ(purged.status, 200U) << purged.body << log_of(0);
  const Json answer = Json::parse(purged.body, nullptr, false);
  EXPECT_EQ(answer["purged"], 1) << purged.body;
  EXPECT_EQ(answer["tag"], "blue") << purged.body;
  EXPECT_EQ(answer["nodes"]["acked"], 3) << purged.body;
  for (std::size_t n = 0; n < 3; ++n) {
    EXPECT_EQ(local_status(n, kBlue), 504U) << nodes_[n].id;
    EXPECT_EQ(local_status(n, kRed), 200U) << nodes_[n].id;
  }
}

// A tag is bytes, not necessarily UTF-8 (the wire format allows 0x80-0xFF):
// the answer still comes (404: nothing here held it), its JSON with U+FFFD for
// what is not UTF-8. The JSON writer used to throw on it, and the client got
// no answer at all.
TEST_F(ClusterTagPurge, ATagThatIsNotUtf8IsAnsweredWithJson) {
  ClusterOptions options;
  options.nodes = 1;
  ASSERT_TRUE(start_cluster(options));
  const auto purged = fetch(0, "/anything", {{"Surrogate-Key", "caf\xc3\xa9 \xff\xfe"}}, "PURGE");
  EXPECT_EQ(purged.status, 404U) << purged.body << log_of(0);  // nothing held the tag here
  const Json answer = Json::parse(purged.body, nullptr, false);
  ASSERT_FALSE(answer.is_discarded()) << purged.body;
  EXPECT_EQ(answer["purged"], 0) << purged.body;
  EXPECT_EQ(answer["tag"], "caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd") << purged.body;
}

TEST_F(ClusterTagPurge, RightAfterATagPurgeAPeerCopyWithTheTagIsNotTakenBack) {
  ASSERT_TRUE(start_cluster({}));
  // node-a cannot deliver its invalidations to node-b, whose summary still
  // claims the URL at node-a and whose proxy port still serves it.
  ASSERT_TRUE(cut_peer_channel(0, 1));
  ASSERT_EQ(x_cache(fetch(1, kRed)), "MISS");
  ASSERT_TRUE(wait_for_deliveries(1, 0));

  const auto purged = purge_at(0, {{"tag", "red"}});
  EXPECT_EQ(purged.status, 404U) << purged.body << log_of(0);  // node-a itself had nothing
  const Json answer = Json::parse(purged.body, nullptr, false);
  ASSERT_FALSE(answer.is_discarded()) << purged.body;
  EXPECT_EQ(answer["nodes"]["pending"], Json::array({"node-b"})) << purged.body;

  // node-a does not know the object's tags, but the copy node-b offers
  // names the purged tag: refused, and the origin answers.
  const auto after = fetch(0, kRed);
  EXPECT_EQ(after.status, 200U);
  EXPECT_EQ(x_cache(after), "MISS") << log_of(0);
  EXPECT_EQ(origin_.log().count("/obj/tagged-red"), 2U);
  EXPECT_NE(admin(0, "/metrics").body.find("sumcache_peer_copies_purged_total 1"),
            std::string::npos);
  // An object without the tag still comes from node-b.
  ASSERT_EQ(x_cache(fetch(1, kBlue)), "MISS");
  ASSERT_TRUE(wait_for_deliveries(1, 0));
  EXPECT_EQ(x_cache(fetch(0, kBlue)), "PEER-HIT");
}

const std::string kUnderA = "/obj/dir-a/one?max_age=600&size=3000";
const std::string kUnderA2 = "/obj/dir-a/sub/two?max_age=600&size=2000";
const std::string kBeside = "/obj/dir-b/three?max_age=600&size=2500";
const std::string kSibling = "/obj/dir-a-not?max_age=600&size=1000";

TEST_F(ClusterTagPurge, APrefixPurgeAtOneNodeRemovesEveryUrlUnderItOnEveryNode) {
  ASSERT_TRUE(start_cluster({}));
  spread({kUnderA, kUnderA2, kBeside, kSibling});

  const auto purged = purge_at(0, {{"prefix", origin_url("/obj/dir-a/")}});
  ASSERT_EQ(purged.status, 200U) << purged.body << log_of(0);
  const Json answer = Json::parse(purged.body, nullptr, false);
  EXPECT_EQ(answer["purged"], 2) << purged.body;
  EXPECT_EQ(answer["prefix"], origin_url("/obj/dir-a/")) << purged.body;
  EXPECT_EQ(answer["nodes"], (Json{{"acked", 3}, {"total", 3}, {"pending", Json::array()}}))
      << purged.body;
  for (std::size_t n = 0; n < 3; ++n) {
    EXPECT_EQ(local_status(n, kUnderA), 504U) << nodes_[n].id;
    EXPECT_EQ(local_status(n, kUnderA2), 504U) << nodes_[n].id;
    EXPECT_EQ(local_status(n, kBeside), 200U) << nodes_[n].id;
    EXPECT_EQ(local_status(n, kSibling), 200U) << nodes_[n].id;
  }
  const auto again = fetch(2, kUnderA);
  EXPECT_EQ(x_cache(again), "MISS");
  EXPECT_EQ(origin_.log().count("/obj/dir-a/one"), 2U);
}

TEST_F(ClusterTagPurge, RightAfterAPrefixPurgeAMissUnderItSkipsThePeers) {
  ASSERT_TRUE(start_cluster({}));
  ASSERT_TRUE(cut_peer_channel(0, 1));
  ASSERT_EQ(x_cache(fetch(1, kUnderA)), "MISS");
  ASSERT_EQ(x_cache(fetch(1, kBeside)), "MISS");
  ASSERT_TRUE(wait_for_deliveries(1, 0));
  const std::size_t b_lines = count_matches(access_log_of(1), "/obj/dir-a/one");

  const auto purged = purge_at(0, {{"prefix", origin_url("/obj/dir-a/")}});
  EXPECT_EQ(purged.status, 404U) << purged.body << log_of(0);
  EXPECT_EQ(Json::parse(purged.body)["nodes"]["pending"], Json::array({"node-b"}));

  const auto after = fetch(0, kUnderA);
  EXPECT_EQ(x_cache(after), "MISS");
  EXPECT_EQ(origin_.log().count("/obj/dir-a/one"), 2U);
  // node-b was not asked: the prefix tombstone covers the URL.
  EXPECT_EQ(count_matches(access_log_of(1), "/obj/dir-a/one"), b_lines) << access_log_of(1);
  // Outside the prefix node-b is still asked.
  EXPECT_EQ(x_cache(fetch(0, kBeside)), "PEER-HIT");
}

TEST_F(ClusterTagPurge, ClientsNeverSeeTheTagFieldUnlessConfigured) {
  ASSERT_TRUE(start_cluster({}));
  const auto miss = fetch(0, kRed);
  ASSERT_EQ(x_cache(miss), "MISS");
  EXPECT_FALSE(miss.header("Surrogate-Key")) << *miss.header("Surrogate-Key");
  const auto hit = fetch(0, kRed);
  ASSERT_EQ(x_cache(hit), "HIT");
  EXPECT_FALSE(hit.header("Surrogate-Key"));
  EXPECT_EQ(hit.body, miss.body);
  ASSERT_TRUE(wait_for_deliveries(0, 1));
  const auto peer_hit = fetch(1, kRed);
  ASSERT_EQ(x_cache(peer_hit), "PEER-HIT");
  EXPECT_FALSE(peer_hit.header("Surrogate-Key"));
  const auto range = fetch(0, kRed, {{"Range", "bytes=0-9"}});
  EXPECT_EQ(range.status, 206U);
  EXPECT_FALSE(range.header("Surrogate-Key"));
  // Not cached (no-store): passed through, and stripped all the same.
  const auto passed = fetch(0, "/obj/nostore?cc=no-store&surrogate_key=x");
  EXPECT_FALSE(passed.header("Surrogate-Key"));
}

TEST_F(ClusterTagPurge, AnObjectWithMoreTagsThanTheBoundIsServedButNeitherStoredNorLost) {
  ASSERT_TRUE(start_cluster({.extra_cache_json = R"("max_tags_per_object": 1, )"}));
  // Two tags over a bound of one: kept unindexed, a tag purge could not find it.
  EXPECT_EQ(x_cache(fetch(0, kRed)), "MISS");
  const auto again = fetch(0, kRed);
  EXPECT_EQ(again.status, 200U);
  EXPECT_EQ(x_cache(again), "MISS");
  EXPECT_EQ(origin_.log().count("/obj/tagged-red"), 2U);
  // Counted, and logged (once per interval) with the count.
  EXPECT_NE(admin(0, "/metrics").body.find(R"(sumcache_store_tag_refusals_total{reason="object"} 2)"),
            std::string::npos)
      << admin(0, "/metrics").body;
  EXPECT_NE(log_of(0).find("more than 1 tags: not stored"), std::string::npos) << log_of(0);
  // One tag is within the bound.
  const std::string one = "/obj/one-tag?max_age=600&surrogate_key=solo";
  EXPECT_EQ(x_cache(fetch(0, one)), "MISS");
  EXPECT_EQ(x_cache(fetch(0, one)), "HIT");
}

TEST_F(ClusterTagPurge, TagHeaderPassShowsTheFieldToClients) {
  ASSERT_TRUE(start_cluster({.extra_cache_json = R"("tag_header_pass": true, )"}));
  ASSERT_EQ(x_cache(fetch(0, kRed)), "MISS");
  const auto hit = fetch(0, kRed);
  ASSERT_EQ(x_cache(hit), "HIT");
  EXPECT_EQ(hit.header("Surrogate-Key").value_or("(none)"), "red shared");
}
}  // namespace
}  // namespace sumcache::testing
