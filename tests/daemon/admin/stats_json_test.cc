// The JSON contract that the dashboard and sumcachectl are written against:
// every name must be there, with the type they read.
#include "daemon/admin/stats_json.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

using Json = nlohmann::ordered_json;

void expect_numbers(const Json& object, std::initializer_list<const char*> names,
                    const std::string& where) {
  for (const char* name : names) {
    ASSERT_TRUE(object.contains(name)) << where << "." << name;
    EXPECT_TRUE(object.at(name).is_number()) << where << "." << name;
  }
}

TEST(StatsJson, StatsCarriesEveryContractField) {
  StatsSnapshot s;
  s.results[static_cast<std::size_t>(CacheResult::refresh_hit)] = 2;
  s.statuses = {{200, 5}, {304, 1}, {404, 2}, {502, 1}};
  const Json j = stats_json(s);
  for (const char* name : {"version", "node_id", "config_digest"}) {
    EXPECT_TRUE(j.at(name).is_string()) << name;
  }
  expect_numbers(j, {"uptime_seconds", "misses", "false_hits"}, "");
  expect_numbers(j.at("requests"), {"total"}, "requests");
  EXPECT_EQ(j.at("requests").at("by_result").at("REFRESH_HIT"), 2);
  EXPECT_EQ(j.at("requests").at("by_result").size(), kCacheResults);
  EXPECT_EQ(j.at("requests").at("by_status").at("304"), 1);
  EXPECT_EQ(j.at("requests").at("errors_by_status"), (Json{{"404", 2}, {"502", 1}}));
  expect_numbers(j.at("hits"), {"memory", "disk", "peer"}, "hits");
  expect_numbers(j.at("revalidations"), {"not_modified", "modified"}, "revalidations");
  EXPECT_EQ(j.at("revalidations").at("not_modified"), 2);
  expect_numbers(j.at("bytes"), {"in", "out"}, "bytes");
  for (const char* window : {"1m", "5m", "since_start"}) {
    expect_numbers(j.at("ratios").at(window), {"hit", "total_hit", "byte_hit"}, window);
  }
  for (const char* cls : {"hit", "miss", "peer_hit"}) {
    expect_numbers(j.at("latency_ms").at(cls), {"count", "p50", "p90", "p99"}, cls);
  }
  expect_numbers(j.at("store").at("memory"), {"objects", "bytes", "max_bytes", "evictions"},
                 "store.memory");
  expect_numbers(j.at("store").at("disk"), {"objects", "bytes", "max_bytes", "evictions"},
                 "store.disk");
  EXPECT_TRUE(j.at("store").at("disk").at("enabled").is_boolean());
  expect_numbers(j.at("connections"), {"open", "refused"}, "connections");
  expect_numbers(j.at("upstream"), {"errors", "truncated", "idle_connections"}, "upstream");
}

TEST(StatsJson, PeersCarryEveryContractField) {
  PeerStatus p;
  p.id = "b";
  p.state = PeerState::suspect;
  p.true_hits = 3;
  p.false_hits = 1;
  p.last_error = "timeout";
  const Json j = peers_json({p});
  ASSERT_EQ(j.at("peers").size(), 1U);
  const Json& peer = j.at("peers")[0];
  EXPECT_EQ(peer.at("id"), "b");
  EXPECT_EQ(peer.at("state"), "suspect");
  EXPECT_EQ(peer.at("source"), "config");
  EXPECT_EQ(peer.at("last_error"), "timeout");
  EXPECT_TRUE(peer.at("has_summary").is_boolean());
  EXPECT_TRUE(peer.at("summary_expired").is_boolean());
  expect_numbers(peer,
                 {"http_port",
                  "peer_port",
                  "summary_epoch",
                  "summary_sequence",
                  "summary_age_seconds",
                  "entries",
                  "m",
                  "k",
                  "fill_ratio",
                  "estimated_fpr",
                  "requests_sent",
                  "true_hits",
                  "false_hits",
                  "measured_false_hit_rate",
                  "request_errors",
                  "messages_sent",
                  "messages_received",
                  "bytes_sent",
                  "bytes_received",
                  "messages_rejected",
                  "rtt_ms"},
                 "peer");
  EXPECT_DOUBLE_EQ(peer.at("measured_false_hit_rate").get<double>(), 0.25);
  EXPECT_EQ(peers_json({}), (Json{{"peers", Json::array()}}));
}

// A Squid peer (docs/interop.md) shows its protocol and the digest held; a summary peer neither.
TEST(StatsJson, SquidPeerShowsItsDigestFetchesAndHeader) {
  PeerStatus p;
  p.id = "squid-1";
  p.protocol = "squid-digest";
  SquidDigestStatus d;
  d.fetches_ok = 2;
  d.not_modified = 3;
  d.refused = 4;
  d.errors = 5;
  d.held = true;
  d.capacity = 200;
  d.count = 51;
  d.mask_bytes = 125;
  d.bits_per_entry = 5;
  d.used_percent = 12;
  d.last_modified = "Tue, 24 Nov 2026 12:29:28 GMT";
  d.fetched_at_ms = 1000;
  d.next_fetch_ms = 3000;
  p.squid_digest = d;
  PeerStatus plain;
  plain.id = "edge-2";
  const Json j = peers_json({p, plain});
  const Json& squid = j.at("peers")[0];
  EXPECT_EQ(squid.at("protocol"), "squid-digest");
  const Json& digest = squid.at("squid_digest");
  EXPECT_EQ(digest.at("fetches"),
            (Json{{"ok", 2}, {"not_modified", 3}, {"refused", 4}, {"errors", 5}}));
  EXPECT_EQ(digest.at("held"), true);
  EXPECT_EQ(digest.at("capacity"), 200);
  EXPECT_EQ(digest.at("count"), 51);
  EXPECT_EQ(digest.at("mask_bytes"), 125);
  EXPECT_EQ(digest.at("bits_per_entry"), 5);
  EXPECT_EQ(digest.at("bits_set_percent"), 12);
  EXPECT_EQ(digest.at("last_modified"), "Tue, 24 Nov 2026 12:29:28 GMT");
  EXPECT_EQ(digest.at("last_fetch_ms"), 1000);
  EXPECT_EQ(digest.at("next_fetch_ms"), 3000);
  expect_numbers(digest, {"age_seconds"}, "squid_digest");
  EXPECT_EQ(j.at("peers")[1].at("protocol"), "summary");
  EXPECT_FALSE(j.at("peers")[1].contains("squid_digest"));
}

TEST(StatsJson, FilterCarriesEveryContractFieldAndItsEstimates) {
  StatsSnapshot s;
  s.filter = {false, 1000, 2, 7, 500, 1, 0, 12, 500};
  s.store.keys = 7;
  const Json j = filter_json(s);
  EXPECT_EQ(j.at("hash"), "xxh3_128");
  EXPECT_EQ(j.at("kind"), "counting-bloom");
  EXPECT_EQ(j.at("universe"), 0);
  expect_numbers(
      j,
      {"m", "k", "entries", "set_bits", "fill_ratio", "estimated_fpr", "estimated_cardinality",
       "store_objects", "saturated_counters", "refused_removes", "pending_changes", "memory_bytes"},
      "filter");
  EXPECT_DOUBLE_EQ(j.at("fill_ratio").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j.at("estimated_fpr").get<double>(), 0.25);  // 0.5^2
  // -(m/k) ln(1 - fill) = -500 ln 0.5
  EXPECT_NEAR(j.at("estimated_cardinality").get<double>(), 346.57, 0.01);
  EXPECT_EQ(j.at("memory_bytes"), 500);
}

// filter.kind fingerprint (docs/admin.md, "/filter"): m is the universe, the
// rate exact from the entries, the memory the table's.
TEST(StatsJson, FilterShowsAFingerprintTablesKindUniverseAndMemory) {
  StatsSnapshot s;
  s.filter.fingerprint = true;
  s.filter.m = 417'000;
  s.filter.k = 1;
  s.filter.entries = 1000;
  s.filter.memory_bytes = 3100;
  const Json j = filter_json(s);
  EXPECT_EQ(j.at("kind"), "fingerprint");
  EXPECT_EQ(j.at("universe"), 417'000);
  EXPECT_EQ(j.at("memory_bytes"), 3100);
  // 1 - (1 - 1/U)^n
  EXPECT_NEAR(j.at("estimated_fpr").get<double>(), 0.0023953, 1e-6);
  EXPECT_EQ(j.at("estimated_cardinality"), 1000.0);
}

// /filter's squid_digest: null when disabled, every figure when on (docs/admin.md).
TEST(StatsJson, FilterCarriesTheSquidDigestWhenEnabled) {
  StatsSnapshot s;
  EXPECT_TRUE(filter_json(s).at("squid_digest").is_null());
  s.squid_digest = SquidDigestStats{};
  s.squid_digest->entries = 10;
  s.squid_digest->not_modified = 2;
  const Json d = filter_json(s).at("squid_digest");
  expect_numbers(d,
                 {"builds", "build_overruns", "last_build_seconds", "entries", "capacity", "bytes",
                  "used_percent", "last_modified", "expires", "served", "not_modified", "refused",
                  "unavailable"},
                 "squid_digest");
  EXPECT_EQ(d.at("entries"), 10);
  EXPECT_EQ(d.at("not_modified"), 2);
}

TEST(StatsJson, AFullFiltersCardinalityIsNullNotInfinity) {
  StatsSnapshot s;
  s.filter = {false, 64, 1, 1000, 64, 0, 0, 0};
  EXPECT_TRUE(filter_json(s).at("estimated_cardinality").is_null());
}

}  // namespace
}  // namespace sumcache::daemon
