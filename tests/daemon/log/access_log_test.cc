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
// method, URL, user, hierarchy[/host], content type.
TEST(AccessLog, SquidLineNamesTheHierarchyAndItsHost) {
  struct Case {
    CacheResult result;
    Hierarchy hierarchy;
    std::string_view tail;
  };
  const Case cases[] = {
      {CacheResult::hit, {}, "TCP_HIT/200 1234 GET http://origin.example/a.png - NONE -"},
      {CacheResult::miss,
       {"DIRECT", "origin.example"},
       "TCP_MISS/200 1234 GET http://origin.example/a.png - DIRECT/origin.example -"},
      {CacheResult::peer_hit,
       {"SIBLING_HIT", "node-b"},
       "TCP_PEER_HIT/200 1234 GET http://origin.example/a.png - SIBLING_HIT/node-b -"},
  };
  for (const auto& c : cases) {
    AccessRecord r = hit_record();
    r.result = c.result;
    r.hierarchy = c.hierarchy;
    EXPECT_EQ(format_access_line(r, config::AccessFormat::squid),
              "1700000000.123      2 192.0.2.7 " + std::string(c.tail));
  }
}

TEST(AccessLog, SquidLineEndsWithTheContentType) {
  AccessRecord r = hit_record();
  r.content_type = "image/png";
  const std::string line = format_access_line(r, config::AccessFormat::squid);
  EXPECT_EQ(line.substr(line.size() - 15), " NONE image/png") << line;
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
