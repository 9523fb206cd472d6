// Interim (1xx) responses through a real sumcached, in forward and reverse mode: each is
// relayed to the client, and the final response after it is stored like any other, without
// the interim response's fields (RFC 9110 §15.2, RFC 9111 §3).
#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/raw_client.h"

namespace sumcache::testing {
namespace {

struct InterimCase {
  const char* rule;  // the RFC section, and what it asks
  const char* path;  // distinct per row: rows share no cache key
  unsigned interim;
};

const InterimCase kInterimCases[] = {
    {"RFC 9110 §15.2: a 102 is relayed, the fresh final response after it stored",
     "/obj/interim-102?interim=102&max_age=600", 102},
    {"RFC 9110 §15.2.4, RFC 8297: a 103 is relayed, the fresh final response after it stored",
     "/obj/interim-103?interim=103&max_age=600", 103},
    {"RFC 9111 §3: the same with a chunked final response",
     "/obj/interim-103-chunked?interim=103&max_age=600&chunked=1", 103},
};

// Neither the final response nor a hit carries a field that only the 103 had.
void expect_no_interim_fields(const ClientResponse& r, const char* which) {
  EXPECT_FALSE(r.header("Link").has_value()) << which;
  EXPECT_FALSE(r.header("X-Early-Hint").has_value()) << which;
}

class InterimConformance : public BothModes {};
INSTANTIATE_TEST_SUITE_P(Modes, InterimConformance, kBothModes, mode_name);

TEST_P(InterimConformance, InterimResponsesAreRelayedAndTheFinalResponseIsCached) {
  for (const auto& c : kInterimCases) {
    SCOPED_TRACE(c.rule);
    const auto first = fetch(c.path);
    ASSERT_EQ(first.status, 200U);
    ASSERT_EQ(first.interim.size(), 1U);
    EXPECT_EQ(first.interim[0].status, c.interim);
    if (c.interim == 103) {
      EXPECT_TRUE(find_header(first.interim[0].headers, "Link").has_value());
      EXPECT_TRUE(find_header(first.interim[0].headers, "X-Early-Hint").has_value());
    }
    expect_no_interim_fields(first, "the relayed final response");
    EXPECT_EQ(first.header("X-Cache").value_or(""), "MISS");

    const auto second = fetch(c.path);
    ASSERT_EQ(second.status, 200U);
    EXPECT_EQ(second.header("X-Cache").value_or(""), "HIT");
    EXPECT_TRUE(second.interim.empty()) << "a hit replays no interim response";
    expect_no_interim_fields(second, "the hit");
    EXPECT_EQ(second.body, first.body);
    const std::string object = std::string(c.path).substr(0, std::string(c.path).find('?'));
    EXPECT_EQ(origin_.log().count(object), 1U);
  }
}

// RFC 9110 §15.2: "A server MUST NOT send a 1xx response to an HTTP/1.0 client": such a
// client would take the interim response for the answer. It gets the final response alone,
// which is still stored.
TEST_P(InterimConformance, AnHttp10ClientGetsNoInterimResponse) {
  const std::string path = "/obj/interim-http10?interim=103&max_age=600&size=10";
  const std::string target = GetParam() == "forward" ? origin_url(path) : path;
  // The Host HttpClient sends, so that fetch() below has the same key in reverse mode.
  const std::string host = "127.0.0.1:" + std::to_string(port_);
  auto reply =
      raw_exchange("127.0.0.1", port_, "GET " + target + " HTTP/1.0\r\nHost: " + host + "\r\n\r\n",
                   std::chrono::seconds(10));
  ASSERT_TRUE(reply.ok());
  EXPECT_TRUE(reply->data.starts_with("HTTP/1.1 200 ") || reply->data.starts_with("HTTP/1.0 200 "))
      << reply->data.substr(0, 40);
  EXPECT_EQ(reply->data.find(" 103 "), std::string::npos);
  EXPECT_EQ(fetch(path).header("X-Cache").value_or(""), "HIT");
}

// Each interim response restarts the wait for the first byte, so an origin that
// sent them without end would hold the exchange forever: past kMaxInterimResponses
// (16) the exchange ends in a 502 that says why, counted as a response refused
// for its framing and logged. Sixteen still pass.
class InterimBound : public BothModes {
 protected:
  ProxyOptions extra_options() const override {
    return {.admin_json = R"({"address": "127.0.0.1", "port": 0})"};
  }
};
INSTANTIATE_TEST_SUITE_P(Modes, InterimBound, kBothModes, mode_name);

TEST_P(InterimBound, MoreThanSixteenInterimResponsesEndTheExchange) {
  const auto sixteen = fetch("/obj/interim-16?interim=103&interim_count=16&max_age=600");
  EXPECT_EQ(sixteen.status, 200U);
  EXPECT_EQ(sixteen.interim.size(), 16U);
  const auto seventeen = fetch("/obj/interim-17?interim=103&interim_count=17&max_age=600");
  EXPECT_EQ(seventeen.status, 502U);
  EXPECT_NE(seventeen.body.find("more than 16 interim"), std::string::npos) << seventeen.body;
  EXPECT_EQ(metric_value("sumcache_framing_refused_total{message=\"response\"}", "1"), "1");
  EXPECT_NE(daemon_log().find("more than 16 interim"), std::string::npos) << daemon_log();
}

}  // namespace
}  // namespace sumcache::testing
