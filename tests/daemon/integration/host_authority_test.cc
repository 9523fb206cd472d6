// One authority per request (issue 27 item 1, docs/proxy.md "One authority
// per request"): the cache key, the Host the origin receives, the site it
// picks and the access log line all come from one canonical authority, in both
// modes. The origin here writes the Host (or X-Forwarded-Host) it received into
// the ETag, so a page stored under a key it was not fetched for shows.
#include <algorithm>
#include <fstream>
#include <thread>

#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/raw_client.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

class HostAuthority : public ProxyTest {
 protected:
  ClientResponse get(const std::string& target, HeaderList headers) {
    HttpClient client({.host = "127.0.0.1", .port = port_, .reuse_connection = false});
    auto r = client.send({.target = target, .headers = std::move(headers)});
    EXPECT_TRUE(r.ok()) << target << ": " << r.error().message();
    return r.ok() ? std::move(r).value() : ClientResponse{};
  }

  // The Host field of every request the origin received for `path`.
  std::vector<std::string> hosts_seen(const std::string& path, const std::string& field = "Host") {
    std::vector<std::string> out;
    for (const auto& e : origin_.log().entries()) {
      if (e.path == path) out.push_back(find_header(e.headers, field).value_or("(none)"));
    }
    return out;
  }

  // The access log once it has `lines` lines (each is written after its
  // response), or as it is after 5 s.
  std::string access_log(std::size_t lines) const {
    std::string text;
    for (int i = 0; i < 100; ++i) {
      std::ifstream in(work_.path() / "access.log");
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      if (static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) >= lines) break;
      std::this_thread::sleep_for(50ms);
    }
    return text;
  }
};

// The defect: reverse mode with the default host_header keep forwarded the
// attacker's Host for an absolute-form target naming the victim, and stored the
// answer under the victim's key; the victim's next request was a HIT on it.
TEST_F(HostAuthority, ReverseAbsoluteFormCannotPoisonAnotherHostsKey_Rfc9112_3_2_2) {
  ASSERT_TRUE(start_proxy({.mode = "reverse"}));
  const std::string path = "/obj/poison?etag_from=Host&max_age=600";
  const auto attack = get("http://victim.example" + path, {{"Host", "attacker.example"}});
  EXPECT_EQ(attack.status, 200U);
  EXPECT_EQ(attack.header("ETag").value_or(""), "\"victim.example\"");
  const auto victim = get(path, {{"Host", "victim.example"}});
  EXPECT_EQ(victim.status, 200U);
  EXPECT_EQ(victim.header("X-Cache").value_or(""), "HIT");
  EXPECT_EQ(victim.header("ETag").value_or(""), "\"victim.example\"")
      << "the victim got the page fetched for another Host";
  EXPECT_EQ(hosts_seen("/obj/poison"), std::vector<std::string>{"victim.example"});
  // The log line names the key the page went under.
  const std::string log = access_log(2);
  EXPECT_NE(log.find("http://victim.example/obj/poison"), std::string::npos) << log;
  EXPECT_EQ(log.find("attacker.example"), std::string::npos) << log;
}

// Case, a trailing dot and the default port are one name: one key, and the
// origin receives the spelling the key has.
TEST_F(HostAuthority, ReverseHostSpellingsShareOneKeyAndOneForwardedHost) {
  ASSERT_TRUE(start_proxy({.mode = "reverse"}));
  const std::string path = "/obj/spelling?etag_from=Host&max_age=600";
  EXPECT_EQ(get(path, {{"Host", "VICTIM.Example.:80"}}).header("X-Cache").value_or(""), "MISS");
  for (const char* host : {"victim.example", "victim.example.", "Victim.example:80"}) {
    const auto r = get(path, {{"Host", host}});
    EXPECT_EQ(r.header("X-Cache").value_or(""), "HIT") << host;
    EXPECT_EQ(r.header("ETag").value_or(""), "\"victim.example\"") << host;
  }
  EXPECT_EQ(hosts_seen("/obj/spelling"), std::vector<std::string>{"victim.example"});
}

// RFC 9112 §3.2: a Host with userinfo or a path, two Host lines, a
// percent-encoded or non-ASCII host: 400, nothing forwarded.
TEST_F(HostAuthority, ReverseRefusesHostsThatAreNotOneName_Rfc9112_3_2) {
  ASSERT_TRUE(start_proxy({.mode = "reverse"}));
  for (const std::string host :
       {"attacker.example@victim.example", "victim.example/p", "%76ictim.example",
        "b\xc3\xbc"
        "cher.example",
        "victim..example"}) {
    const auto r =
        raw_exchange("127.0.0.1", port_, "GET /obj/bad HTTP/1.1\r\nHost: " + host + "\r\n\r\n", 3s);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->data.rfind("HTTP/1.1 400", 0), 0U) << host << "\n" << r->data;
  }
  const auto two = raw_exchange(
      "127.0.0.1", port_,
      "GET /obj/bad HTTP/1.1\r\nHost: victim.example\r\nHost: attacker.example\r\n\r\n", 3s);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->data.rfind("HTTP/1.1 400", 0), 0U) << two->data;
  EXPECT_EQ(origin_.log().count("/obj/bad"), 0U);
}

// X-Forwarded-Host never reaches the origin from a client: an origin that
// writes links or picks a site by it would otherwise store one site's page
// under another's key. In reverse mode it carries the key's authority.
TEST_F(HostAuthority, ReverseReplacesXForwardedHostWithTheKeysAuthority) {
  ASSERT_TRUE(start_proxy({.mode = "reverse"}));
  const std::string path = "/obj/xfh?etag_from=X-Forwarded-Host&max_age=600";
  const auto attack =
      get(path, {{"Host", "victim.example"}, {"X-Forwarded-Host", "attacker.example"}});
  EXPECT_EQ(attack.header("ETag").value_or(""), "\"victim.example\"");
  EXPECT_EQ(hosts_seen("/obj/xfh", "X-Forwarded-Host"), std::vector<std::string>{"victim.example"});
}

// Forward mode: the absolute-form target names the origin; a Host field
// naming another is ignored, and a client's X-Forwarded-Host is not sent on.
TEST_F(HostAuthority, ForwardIgnoresHostAndDropsXForwardedHost_Rfc9112_3_2_2) {
  ASSERT_TRUE(start_proxy());
  const std::string authority = "127.0.0.1:" + std::to_string(origin_.port());
  const std::string path = "/obj/fwd?etag_from=Host&max_age=600";
  const auto attack = get(origin_url(path),
                          {{"Host", "attacker.example"}, {"X-Forwarded-Host", "attacker.example"}});
  EXPECT_EQ(attack.header("ETag").value_or(""), "\"" + authority + "\"");
  const auto again = get(origin_url(path), {{"Host", authority}});
  EXPECT_EQ(again.header("X-Cache").value_or(""), "HIT");
  EXPECT_EQ(again.header("ETag").value_or(""), "\"" + authority + "\"");
  EXPECT_EQ(hosts_seen("/obj/fwd"), std::vector<std::string>{authority});
  EXPECT_EQ(hosts_seen("/obj/fwd", "X-Forwarded-Host"), std::vector<std::string>{"(none)"});
}

}  // namespace
}  // namespace sumcache::testing
