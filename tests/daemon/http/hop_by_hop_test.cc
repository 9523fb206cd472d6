#include "daemon/http/hop_by_hop.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

// RFC 9110 §7.6.1: connection-specific fields are not forwarded.
TEST(HopByHop, RemovesConnectionSpecificFields_Rfc9110_7_6_1) {
  HeaderList fields = {{"connection", "keep-alive"},
                       {"Keep-Alive", "timeout=5"},
                       {"Proxy-Connection", "keep-alive"},
                       {"Proxy-Authenticate", "Basic"},
                       {"Proxy-Authorization", "Basic eA=="},
                       {"TE", "trailers"},
                       {"Trailer", "X-Sum"},
                       {"Transfer-Encoding", "chunked"},
                       {"Upgrade", "h2c"},
                       {"Content-Type", "text/plain"}};
  remove_hop_by_hop(fields);
  const HeaderList expected = {{"Content-Type", "text/plain"}};
  EXPECT_EQ(fields, expected);
}

// RFC 9110 §7.6.1: so are the fields that Connection names.
TEST(HopByHop, RemovesFieldsNamedInConnection) {
  HeaderList fields = {{"Connection", "close, X-Local"},
                       {"connection", "x-other"},
                       {"x-local", "1"},
                       {"X-Other", "2"},
                       {"X-Kept", "3"}};
  remove_hop_by_hop(fields);
  const HeaderList expected = {{"X-Kept", "3"}};
  EXPECT_EQ(fields, expected);
}

TEST(HopByHop, KnowsTheListCaseInsensitively) {
  EXPECT_TRUE(is_hop_by_hop("transfer-encoding"));
  EXPECT_TRUE(is_hop_by_hop("PROXY-CONNECTION"));
  EXPECT_FALSE(is_hop_by_hop("Cache-Control"));
  EXPECT_FALSE(is_hop_by_hop("Set-Cookie"));
}

// RFC 9110 §7.6.3: received-protocol, omitting "HTTP/", then our pseudonym.
TEST(HopByHop, ViaEntryIsProtocolVersionAndNode_Rfc9110_7_6_3) {
  EXPECT_EQ(via_entry("1.1", "cache-a"), "1.1 cache-a");
  EXPECT_EQ(via_entry("1.0", "edge.example:3128"), "1.0 edge.example:3128");
}

// RFC 9110 §7.6.3: Via exists to detect forwarding loops.
TEST(HopByHop, ViaWithOurNodeIsALoop) {
  const HeaderList via = {{"Via", "1.0 fred, 1.1 p.example.net (Cache/1.0, x)"},
                          {"via", "HTTP/1.1 Cache-A"}};
  EXPECT_TRUE(via_has_node(via, "cache-a"));
  EXPECT_TRUE(via_has_node(via, "fred"));
  EXPECT_TRUE(via_has_node(via, "p.example.net"));
  EXPECT_FALSE(via_has_node(via, "cache"));      // not a substring match
  EXPECT_FALSE(via_has_node(via, "Cache/1.0"));  // comments are not nodes
  EXPECT_FALSE(via_has_node(via, "x"));
  EXPECT_FALSE(via_has_node({}, "cache-a"));
  EXPECT_FALSE(via_has_node(via, ""));
}

// The rule the Beast-side strip (exchange/head_writer.cc) shares: the list,
// and the names one Connection value lists, case-insensitively.
TEST(HopByHop, ConnectionOptionsAreHopByHopToo) {
  std::vector<std::string> options;
  add_connection_options("close, X-Local ,x-other", options);
  add_connection_options("", options);
  EXPECT_EQ(options, (std::vector<std::string>{"close", "X-Local", "x-other"}));
  EXPECT_TRUE(is_hop_by_hop("x-local", options));
  EXPECT_TRUE(is_hop_by_hop("X-OTHER", options));
  EXPECT_TRUE(is_hop_by_hop("TE", options));
  EXPECT_FALSE(is_hop_by_hop("X-Kept", options));
  EXPECT_FALSE(is_hop_by_hop("X-Local", {}));
}

// RFC 9110 §7.6.3: each proxy appends its member after those already there.
TEST(HopByHop, OurViaMemberGoesLast_Rfc9110_7_6_3) {
  EXPECT_EQ(via_appended("", "1.1 cache-a"), "1.1 cache-a");
  EXPECT_EQ(via_appended("1.0 fred", "1.1 cache-a"), "1.0 fred, 1.1 cache-a");
  HeaderList fields = {{"Via", "1.0 fred"}, {"Age", "3"}, {"via", "1.1 p.example"}};
  append_via(fields, "1.1 cache-a");
  const HeaderList expected = {{"Age", "3"}, {"Via", "1.0 fred, 1.1 p.example, 1.1 cache-a"}};
  EXPECT_EQ(fields, expected);
  HeaderList none;
  append_via(none, "1.1 cache-a");
  EXPECT_EQ(none, (HeaderList{{"Via", "1.1 cache-a"}}));
}

}  // namespace
}  // namespace sumcache::daemon
