#include "daemon/log/access_log.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

AccessRecord hit_record() {
  AccessRecord r;
  r.start = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'000'123));
  r.elapsed = std::chrono::microseconds(2'500);
  r.client = "192.0.2.7";
  r.method = "GET";
  r.url = "http://origin.example/a.png";
  r.status = 200;
  r.bytes = 1234;
  r.result = CacheResult::hit;
  return r;
}

// Squid's native format: time, elapsed ms, client, result/status, bytes,
// method, URL, user, hierarchy/host, content type.
TEST(AccessLog, SquidLineOfAHitNamesNoHierarchyHost) {
  EXPECT_EQ(format_access_line(hit_record(), config::AccessFormat::squid),
            "1700000000.123      2 192.0.2.7 TCP_HIT/200 1234 GET http://origin.example/a.png "
            "- NONE -");
}

TEST(AccessLog, SquidLineNamesTheOriginOfADirectFetch) {
  AccessRecord r = hit_record();
  r.result = CacheResult::miss;
  r.hierarchy = {"DIRECT", "origin.example"};
  r.content_type = "image/png";
  EXPECT_EQ(format_access_line(r, config::AccessFormat::squid),
            "1700000000.123      2 192.0.2.7 TCP_MISS/200 1234 GET http://origin.example/a.png "
            "- DIRECT/origin.example image/png");
}

TEST(AccessLog, SquidLineNamesThePeerOfAPeerHit) {
  AccessRecord r = hit_record();
  r.result = CacheResult::peer_hit;
  r.hierarchy = {"SIBLING_HIT", "node-b"};
  EXPECT_NE(
      format_access_line(r, config::AccessFormat::squid)
          .find(" TCP_PEER_HIT/200 1234 GET http://origin.example/a.png - SIBLING_HIT/node-b -"),
      std::string::npos);
}

TEST(AccessLog, CombinedLineEndsWithTheCacheResultAndTime) {
  AccessRecord r = hit_record();
  r.user_agent = "curl/7.88.1";
  const std::string line = format_access_line(r, config::AccessFormat::combined);
  EXPECT_EQ(line.rfind("192.0.2.7 - - [", 0), 0U) << line;
  EXPECT_NE(line.find("] \"GET http://origin.example/a.png HTTP/1.1\" 200 1234 \"-\" "
                      "\"curl/7.88.1\" HIT 2ms"),
            std::string::npos)
      << line;
}

}  // namespace
}  // namespace sumcache::daemon
