#include "tools/sumcachectl/json_tables.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace sumcache::tools {
namespace {

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(JsonTables, PeerFalseHitRateIsFalseHitsPerRequestSent) {
  const auto peers = nlohmann::json::parse(R"({"peers": [
    {"id": "b", "host": "10.0.0.2", "http_port": 3128, "state": "up", "has_summary": true,
     "summary_age_seconds": 2.5, "summary_expired": false, "entries": 900, "fill_ratio": 0.25,
     "estimated_fpr": 0.0039, "requests_sent": 200, "false_hits": 3, "rtt_ms": 0.5,
     "last_error": ""},
    {"id": "c", "host": "10.0.0.3", "http_port": 3128, "state": "down", "has_summary": false,
     "requests_sent": 0, "false_hits": 0, "last_error": "connection refused"}]})");
  const std::string text = format_peers(peers);
  EXPECT_TRUE(has(text, "0.0150")) << text;  // 3 / 200
  EXPECT_TRUE(has(text, "10.0.0.2:3128")) << text;
  EXPECT_TRUE(has(text, "25.0%")) << text;
  EXPECT_TRUE(has(text, "none")) << text;  // c has no summary yet
  EXPECT_TRUE(has(text, "connection refused")) << text;
}

TEST(JsonTables, MissingFieldsShowAsDashesInsteadOfFailing) {
  const std::string text = format_stats(nlohmann::json::parse(R"({"requests": {"total": 7}})"));
  EXPECT_TRUE(has(text, "7 total")) << text;
  EXPECT_TRUE(has(text, "memory -")) << text;
  EXPECT_EQ(format_peers(nlohmann::json::object()), "no peers\n");
  EXPECT_TRUE(has(format_filter(nlohmann::json::array()), "estimated FPR -"));
}

TEST(JsonTables, StatsShowEveryRatioWindowAsPercent) {
  const auto stats = nlohmann::json::parse(R"({"ratios": {
      "1m": {"hit": 0.5, "total_hit": 0.75, "byte_hit": 0.25, "total_byte_hit": 0.5},
      "5m": {"hit": 0.1, "total_hit": 0.2, "byte_hit": 0.3},
      "since_start": {"hit": 1, "total_hit": 1, "byte_hit": 0}}})");
  const std::string text = format_stats(stats);
  EXPECT_TRUE(has(text, "  1m            50.0%   75.0%  25.0%        50.0%\n")) << text;
  EXPECT_TRUE(has(text, "  since_start  100.0%  100.0%   0.0%            -\n")) << text;
}

TEST(JsonTables, HumanBytesUsesBinaryUnits) {
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(human_bytes(160.0 * 1024 * 1024), "160.0 MiB");
}

}  // namespace
}  // namespace sumcache::tools
