// Squid as a peer of sumcache (docs/interop.md): a peers[] entry with
// "protocol": "squid-digest" makes sumcached fetch that Squid's Cache Digest,
// hold it in the summary directory, and send a miss the digest claims to the
// Squid with only-if-cached; a miss it does not claim goes to the origin.
// First against a real Squid (Debian's package, tests/support/squid_process.h),
// then against a small raw TCP server standing in for a Squid, which serves
// damaged digests: each is refused with a log line and a counter, and the
// digest held before stays in use.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "protocol/squid_digest.h"
#include "tests/support/daemon_process.h"
#include "tests/support/http_client.h"
#include "tests/support/http_date.h"
#include "tests/support/ports.h"
#include "tests/support/squid_process.h"
#include "tests/support/test_origin.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kSquidPeerId = "squid-1";

// Waits until `done()` holds, polling every 100 ms for at most `limit`.
template <class F>
bool eventually(F done, std::chrono::milliseconds limit = 15s) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return done();
}

// A forward-mode sumcached whose only peer is a Squid (squid-digest) at
// 127.0.0.1:squid_port, with its admin listener and access log.
class SquidPeerNode {
 public:
  bool start(std::uint16_t squid_port) {
    const std::string config = R"({
      "node": {"id": "sumcache-a"},
      "mode": "forward",
      "workers": 2,
      "listen": [{"address": "127.0.0.1", "port": 0}],
      "admin": {"address": "127.0.0.1", "port": 0},
      "cluster": {"sharing": "summary", "secret": "squid-peer-test-secret-0123",
                  "peer_listen": {"address": "127.0.0.1", "port": )" +
                               std::to_string(free_port()) + R"(},
                  "update_max_interval_ms": 200, "summary_expiry_ms": 60000,
                  "peer_timeout_ms": 2000},
      "peers": [{"id": ")" + std::string(kSquidPeerId) +
                               R"(", "host": "127.0.0.1", "http_port": )" +
                               std::to_string(squid_port) + R"(, "protocol": "squid-digest"}],
      "cache": {"memory": {"max_bytes": "64MiB"}, "disk": {"enabled": false}},
      "log": {"access_log": ")" +
                               (daemon_.dir() / "access.log").string() +
                               R"(", "level": "info"}
    })";
    const auto path = daemon_.write_file("sumcache.json", config);
    if (daemon_.start(SUMCACHED_PATH, {"--config", path.string()})) return false;
    const auto proxy =
        daemon_.wait_for_line("proxy listening on 127\\.0\\.0\\.1:([0-9]+)", 30s, Output::err);
    const auto admin =
        daemon_.wait_for_line("admin listening on 127\\.0\\.0\\.1:([0-9]+)", 30s, Output::err);
    if (!proxy || !admin) return false;
    proxy_port_ = static_cast<std::uint16_t>(std::stoi((*proxy)[1]));
    admin_port_ = static_cast<std::uint16_t>(std::stoi((*admin)[1]));
    return true;
  }

  Result<ClientResponse> get(const std::string& url) {
    HttpClient client({.port = proxy_port_, .reuse_connection = false});
    return client.send({.target = url});
  }

  // The squid peer's entry in /peers; null when it cannot be read.
  json squid_peer() {
    HttpClient client({.port = admin_port_, .reuse_connection = false});
    auto r = client.send({.target = "/peers"});
    if (!r.ok()) return nullptr;
    const json all = json::parse(r.value().body, nullptr, false);
    if (!all.is_object() || !all.contains("peers")) return nullptr;
    for (const auto& p : all["peers"]) {
      if (p.value("id", "") == kSquidPeerId) return p;
    }
    return nullptr;
  }
  std::uint64_t digest_fetches(const std::string& result) {
    const json p = squid_peer();
    if (!p.is_object() || !p.contains("squid_digest")) return 0;
    return p["squid_digest"]["fetches"].value(result, std::uint64_t{0});
  }
  std::string metrics() {
    HttpClient client({.port = admin_port_, .reuse_connection = false});
    auto r = client.send({.target = "/metrics"});
    return r.ok() ? r.value().body : "";
  }

  std::string log() const { return daemon_.output(Output::err); }
  std::string access_log() const {
    std::ifstream in(daemon_.dir() / "access.log");
    return {std::istreambuf_iterator<char>(in), {}};
  }

 private:
  DaemonProcess daemon_;
  std::uint16_t proxy_port_ = 0;
  std::uint16_t admin_port_ = 0;
};

// ---------------------------------------------------------------- a real Squid

// The Squid's digest as it serves it now, decoded, with its Last-Modified.
struct ServedDigest {
  protocol::SquidDigest digest;
  std::string last_modified;
};

std::optional<ServedDigest> fetch_digest(std::uint16_t squid_port) {
  HttpClient client({.port = squid_port, .reuse_connection = false});
  const std::string url = "http://" + std::string(SquidProcess::kHostname) + ":" +
                          std::to_string(squid_port) + protocol::kSquidDigestPath;
  auto r = client.send({.target = url, .headers = {{"Accept", protocol::kSquidDigestType}}});
  if (!r.ok() || r.value().status != 200) return std::nullopt;
  ServedDigest out;
  const std::string& body = r.value().body;
  if (protocol::SquidDigest::decode(
          {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()}, 1u << 24,
          out.digest)) {
    return std::nullopt;
  }
  out.last_modified = r.value().header("Last-Modified").value_or("");
  return out;
}

TEST(SquidPeer, AMissTheSquidsDigestClaimsIsAPeerHitAndOtherMissesGoToTheOrigin) {
  if (!SquidProcess::installed()) GTEST_FAIL() << "squid is not installed: run scripts/setup";
  TestOrigin origin;
  ASSERT_FALSE(origin.start());
  SquidProcess squid;
  SquidOptions options;
  options.http_port = free_port();
  const std::string why = squid.start(options);
  ASSERT_TRUE(why.empty()) << why;
  const std::string base = "http://127.0.0.1:" + std::to_string(origin.port());
  const std::string held_url = base + "/obj/squid-held?max_age=600";

  // The Squid caches the object, and its digest (rebuilt every 2 s) claims it.
  {
    HttpClient client({.port = squid.http_port(), .reuse_connection = false});
    auto r = client.send({.target = held_url});
    ASSERT_TRUE(r.ok()) << r.error().message();
    ASSERT_EQ(r.value().status, 200);
  }
  std::optional<ServedDigest> served;
  ASSERT_TRUE(eventually([&] {
    served = fetch_digest(squid.http_port());
    return served && served->digest.contains(protocol::squid_store_key(held_url));
  })) << "the Squid's digest never claimed "
      << held_url << "\n"
      << squid.cache_log();
  // An object the digest does not claim (a Bloom filter may claim one by chance: ~9%).
  std::string other_url;
  for (int i = 0; i < 100 && other_url.empty(); ++i) {
    const std::string url = base + "/obj/squid-other-" + std::to_string(i) + "?max_age=600";
    if (!served->digest.contains(protocol::squid_store_key(url))) other_url = url;
  }
  ASSERT_FALSE(other_url.empty());

  SquidPeerNode node;
  ASSERT_TRUE(node.start(squid.http_port())) << node.log();
  // Until the node holds the digest that claims the object (or a later one).
  ASSERT_TRUE(eventually([&] {
    const json p = node.squid_peer();
    if (!p.is_object() || !p.contains("squid_digest")) return false;
    const json& d = p["squid_digest"];
    const auto held_at = parse_http_date(d.value("last_modified", ""));
    const auto served_at = parse_http_date(served->last_modified);
    return d.value("held", false) && held_at && served_at && *held_at >= *served_at;
  })) << node.squid_peer().dump(2)
      << "\n"
      << node.log();
  {
    const json p = node.squid_peer();
    EXPECT_EQ(p["protocol"], "squid-digest");
    EXPECT_GE(p["squid_digest"]["fetches"]["ok"].get<std::uint64_t>(), 1U);
    EXPECT_GT(p["squid_digest"]["capacity"].get<std::uint64_t>(), 0U);
    EXPECT_GT(p["squid_digest"]["next_fetch_ms"].get<std::int64_t>(), 0);
  }

  auto hit = node.get(held_url);
  ASSERT_TRUE(hit.ok()) << hit.error().message();
  EXPECT_EQ(hit.value().status, 200);
  EXPECT_EQ(x_cache(hit.value()), "PEER-HIT") << node.log();
  EXPECT_EQ(origin.log().count("/obj/squid-held"), 1U);  // the Squid's fetch, none of ours
  // The access log line is written after the response.
  EXPECT_TRUE(eventually([&] {
    return node.access_log().find("SIBLING_HIT/" + std::string(kSquidPeerId)) != std::string::npos;
  }, 5s))
      << node.access_log();

  auto miss = node.get(other_url);
  ASSERT_TRUE(miss.ok()) << miss.error().message();
  EXPECT_EQ(miss.value().status, 200);
  EXPECT_EQ(x_cache(miss.value()), "MISS");
  const std::string other_path = other_url.substr(base.size(), other_url.find('?') - base.size());
  EXPECT_EQ(origin.log().count(other_path), 1U);

  squid.stop();
  const std::string squid_log = squid.access_log();
  EXPECT_EQ(squid_log.find(other_path), std::string::npos) << squid_log;
  // The node's request for the held object, answered from the Squid's store.
  EXPECT_NE(squid_log.find("HIT/200"), std::string::npos) << squid_log;
  EXPECT_NE(squid_log.find("/squid-internal-periodic/store_digest"), std::string::npos);
  // The Squid served its digest itself: never forwarded (an absolute URI naming
  // it by address was, to itself, and with siblings of its own in a loop).
  std::istringstream lines(squid_log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("store_digest") == std::string::npos) continue;
    EXPECT_EQ(line.find("HIER_DIRECT"), std::string::npos) << line;
    EXPECT_EQ(line.find("SIBLING"), std::string::npos) << line;
  }
}

// ------------------------------------------------ a raw server as a damaged Squid

// Serves `digest_answer` (exact bytes) for the digest path, a stored object
// (X-Cache: HIT) for anything else, one request per connection; records
// every request head.
class FakeSquid {
 public:
  FakeSquid() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(listen_fd_, 16);
    socklen_t len = sizeof a;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~FakeSquid() {
    stop_ = true;
    thread_.join();
    ::close(listen_fd_);
  }
  FakeSquid(const FakeSquid&) = delete;
  FakeSquid& operator=(const FakeSquid&) = delete;

  std::uint16_t port() const { return port_; }
  // not_modified: a request conditional on this answer's Last-Modified gets a 304.
  void serve_digest(std::string answer, bool not_modified = false) {
    std::lock_guard lock(mutex_);
    digest_answer_ = std::move(answer);
    not_modified_ = not_modified;
  }
  std::vector<std::string> heads() const {
    std::lock_guard lock(mutex_);
    return heads_;
  }
  std::size_t requests_for(const std::string& needle) const {
    std::size_t n = 0;
    for (const auto& h : heads()) n += h.find(needle) != std::string::npos ? 1 : 0;
    return n;
  }

 private:
  void run() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      serve(fd);
      ::close(fd);
    }
  }
  void serve(int fd) {
    std::string head;
    const auto deadline = Clock::now() + 2s;
    char buf[4096];
    while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536 &&
           Clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const auto n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return;
      head.append(buf, static_cast<std::size_t>(n));
    }
    std::string answer;
    {
      std::lock_guard lock(mutex_);
      heads_.push_back(head);
      if (head.find(protocol::kSquidDigestPath) == std::string::npos) {
        answer = kObject;
      } else if (not_modified_ && matches_last_modified(head)) {
        answer = "HTTP/1.1 304 Not Modified\r\nConnection: close\r\n\r\n";
      } else {
        answer = digest_answer_;
      }
    }
    std::string_view left = answer;
    while (!left.empty()) {
      const auto n = ::send(fd, left.data(), left.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      left.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  static constexpr const char* kObject =
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n"
      "Cache-Control: max-age=600\r\nX-Cache: HIT from fake-squid\r\n"
      "Connection: close\r\n\r\nfrom squid\n";
  // Whether the request's If-Modified-Since is the digest answer's Last-Modified (mutex held).
  bool matches_last_modified(const std::string& head) const {
    const auto at = digest_answer_.find("Last-Modified: ");
    if (at == std::string::npos) return false;
    const auto end = digest_answer_.find("\r\n", at);
    return head.find("If-Modified-Since: " + digest_answer_.substr(at + 15, end - at - 15)) !=
           std::string::npos;
  }

  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::string digest_answer_;
  bool not_modified_ = false;
  std::vector<std::string> heads_;
  std::thread thread_;
};

std::string digest_answer(const std::string& body, std::size_t content_length) {
  return "HTTP/1.1 200 Cache Digest OK\r\nContent-Type: application/cache-digest\r\n"
         "Content-Length: " +
         std::to_string(content_length) + "\r\nLast-Modified: " +
         format_http_date(
             std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())) +
         "\r\nConnection: close\r\n\r\n" + body;
}

void put32(std::string& s, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    s[at + static_cast<std::size_t>(i)] = static_cast<char>(v >> (24 - 8 * i));
}

TEST(SquidPeer, DamagedDigestsAreRefusedAndTheDigestHeldBeforeStaysInUse) {
  TestOrigin origin;
  ASSERT_FALSE(origin.start());
  const std::string base = "http://127.0.0.1:" + std::to_string(origin.port());
  const auto held_url = [&](int i) { return base + "/obj/fake-held-" + std::to_string(i); };
  FakeSquid squid;
  protocol::SquidDigest good(200);
  for (int i = 0; i < 5; ++i) good.add(protocol::squid_store_key(held_url(i)));
  const std::string good_body = good.encode();
  squid.serve_digest(digest_answer(good_body, good_body.size()), true);

  SquidPeerNode node;
  ASSERT_TRUE(node.start(squid.port())) << node.log();
  ASSERT_TRUE(eventually([&] { return node.digest_fetches("ok") >= 1; }))
      << node.squid_peer().dump(2) << "\n"
      << node.log();
  // The fetch is Squid's own: origin-form with Host, Accept: application/cache-digest.
  const std::string first = squid.heads().front();
  EXPECT_EQ(first.rfind(std::string("GET ") + protocol::kSquidDigestPath + " HTTP/1.1\r\n", 0), 0U)
      << first;
  EXPECT_NE(first.find("Host: 127.0.0.1:" + std::to_string(squid.port())), std::string::npos)
      << first;
  EXPECT_NE(first.find("Accept: application/cache-digest"), std::string::npos) << first;
  // Later fetches are conditional on the digest held, and a 304 keeps it.
  ASSERT_TRUE(eventually([&] { return node.digest_fetches("not_modified") >= 1; }))
      << node.squid_peer().dump(2);

  std::string truncated = digest_answer(good_body.substr(0, 100), good_body.size());
  std::string oversized = digest_answer("", std::size_t{1} << 31);
  std::string inconsistent_body = good_body;
  put32(inconsistent_body, 16, good.header().mask_size + 1);  // mask_size != capacity's
  std::string full_body = good_body;
  std::fill(full_body.begin() + static_cast<std::ptrdiff_t>(protocol::kSquidDigestHeaderBytes),
            full_body.end(), '\xff');
  const struct {
    const char* name;
    std::string answer;
    const char* reason;  // in the log line
  } kDamaged[] = {
      {"truncated", truncated, "truncated"},
      {"oversized", oversized, "Content-Length above the largest digest"},
      {"inconsistent", digest_answer(inconsistent_body, inconsistent_body.size()),
       "mask_size differs"},
      {"too many bits set", digest_answer(full_body, full_body.size()), "more than 65%"},
  };
  int held = 0;
  for (const auto& damaged : kDamaged) {
    SCOPED_TRACE(damaged.name);
    const std::uint64_t refused_before = node.digest_fetches("refused");
    squid.serve_digest(damaged.answer);
    ASSERT_TRUE(eventually([&] { return node.digest_fetches("refused") > refused_before; }))
        << node.squid_peer().dump(2);
    // One line a second at most: the next refusal of the same kind carries it.
    EXPECT_TRUE(eventually([&] {
      std::istringstream lines(node.log());
      for (std::string line; std::getline(lines, line);) {
        if (line.find("peer squid-1: Squid digest refused: ") != std::string::npos &&
            line.find(damaged.reason) != std::string::npos) {
          return true;
        }
      }
      return false;
    })) << node.log();
    // The digest held before still routes a miss it claims to the Squid.
    const std::string url = held_url(held++);
    auto r = node.get(url);
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(x_cache(r.value()), "PEER-HIT") << node.log();
    EXPECT_EQ(r.value().body, "from squid\n");
    EXPECT_EQ(origin.log().count(url.substr(base.size())), 0U);
    // Back to a good digest: the fetches succeed again (and the backoff ends).
    const std::uint64_t ok_before = node.digest_fetches("ok") + node.digest_fetches("not_modified");
    squid.serve_digest(digest_answer(good_body, good_body.size()), true);
    ASSERT_TRUE(eventually([&] {
      return node.digest_fetches("ok") + node.digest_fetches("not_modified") > ok_before;
    }));
  }
  const std::string metrics = node.metrics();
  EXPECT_NE(
      metrics.find("sumcache_peer_squid_digest_fetches_total{peer=\"squid-1\",result=\"refused\"}"),
      std::string::npos)
      << metrics;
  // The object requests to the Squid carried only-if-cached and none of our peer fields
  // (our Via entry, as to any upstream).
  for (const auto& h : squid.heads()) {
    if (h.find(protocol::kSquidDigestPath) != std::string::npos) continue;
    EXPECT_NE(h.find("only-if-cached"), std::string::npos) << h;
    EXPECT_EQ(h.find("Sumcache-Peer-Auth"), std::string::npos) << h;
    EXPECT_EQ(h.find("X-Sumcache-Peer"), std::string::npos) << h;
  }
  // A miss the digest does not claim never reaches the Squid.
  std::string other;
  for (int i = 0; i < 100 && other.empty(); ++i) {
    const std::string url = base + "/obj/fake-other-" + std::to_string(i);
    if (!good.contains(protocol::squid_store_key(url))) other = url;
  }
  auto r = node.get(other);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(x_cache(r.value()), "MISS");
  EXPECT_EQ(squid.requests_for("fake-other"), 0U);
}

}  // namespace
}  // namespace sumcache::testing
