// Bodies relayed as they arrive (docs/proxy.md, "One request" step 7): a
// scripted origin holds mid-body until the test has seen what came before the
// hold reach the client, or closes mid-body; forward and reverse mode, through
// a cache-filling GET and a pass-through POST.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/daemon/integration/scripted_origin.h"

namespace sumcache::testing {
namespace {

namespace http = boost::beast::http;
using namespace std::chrono_literals;

// Long enough for any relay on a loaded machine; a proxy that holds the
// bytes back holds them until the origin sends more, which it will not do
// before the test opens the gate.
constexpr auto kWait = 5s;

// A client on a raw socket that parses the response as it arrives, so a test
// can look at the body received so far.
class StreamClient {
 public:
  StreamClient(std::uint16_t port, const std::string& request) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    connected_ = fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                 ::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) ==
                     static_cast<ssize_t>(request.size());
    parser_.eager(true);
    parser_.body_limit(boost::none);
  }
  ~StreamClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  StreamClient(const StreamClient&) = delete;
  StreamClient& operator=(const StreamClient&) = delete;

  // Reads until `body_bytes` of body have come, the server closed, or `timeout`.
  void read_body(std::size_t body_bytes, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (connected_ && !closed_ && !parser_.is_done() && body().size() < body_bytes) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{fd_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) != 1) return;
      char buf[16 * 1024];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        boost::system::error_code ec;
        if (parser_.got_some()) parser_.put_eof(ec);
        end_error_ = ec;
        return;
      }
      pending_.append(buf, static_cast<std::size_t>(n));
      boost::system::error_code ec;
      const std::size_t used = parser_.put(boost::asio::buffer(pending_), ec);
      if (ec && ec != http::error::need_more) {
        ADD_FAILURE() << "malformed response from the proxy: " << ec.message();
        closed_ = true;
        return;
      }
      pending_.erase(0, used);
    }
  }
  // Reads to the end of the response or of the connection.
  void read_to_end(std::chrono::milliseconds timeout) { read_body(SIZE_MAX, timeout); }

  const std::string& body() const { return parser_.get().body(); }
  std::string x_cache() const { return std::string(parser_.get()["X-Cache"]); }
  bool complete() const { return parser_.is_done(); }
  // The server closed before the framing said the body ended.
  bool truncated() const { return closed_ && end_error_ == http::error::partial_message; }
  bool closed() const { return closed_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool closed_ = false;
  boost::system::error_code end_error_;
  std::string pending_;
  http::response_parser<http::string_body> parser_;
};

struct Path {
  std::string mode;    // forward, reverse
  std::string method;  // GET fills the cache; POST passes through
};

void PrintTo(const Path& p, std::ostream* os) { *os << p.mode << " " << p.method; }

class StreamingTest : public ProxyTest, public ::testing::WithParamInterface<Path> {
 protected:
  bool start(ScriptedOrigin& origin, const std::string& extra_json = "") {
    if (!start_proxy({.mode = GetParam().mode,
                      .extra_json = extra_json,
                      .origin_url = origin.url(),
                      .admin_json = R"({"address": "127.0.0.1", "port": 0})"})) {
      return false;
    }
    auto match = daemon_->wait_for_line("admin listening on 127\\.0\\.0\\.1:([0-9]+)",
                                        std::chrono::seconds(10), Output::err);
    if (match) admin_port_ = static_cast<std::uint16_t>(std::stoi((*match)[1]));
    return match.has_value();
  }
  // sumcache_upstream_truncated_total from /metrics, -1 when missing.
  long truncated_total() {
    auto r = http_get(admin_port_, "/metrics");
    if (!r.ok()) return -1;
    const std::string name = "\nsumcache_upstream_truncated_total ";
    const auto at = r.value().body.find(name);
    return at == std::string::npos ? -1 : std::stol(r.value().body.substr(at + name.size()));
  }
  std::string request(const ScriptedOrigin& origin, const std::string& path) const {
    const std::string target = GetParam().mode == "forward" ? origin.url() + path : path;
    const bool post = GetParam().method == "POST";
    return GetParam().method + " " + target +
           " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(origin.port()) + "\r\n" +
           (post ? "Content-Length: 1\r\n\r\nx" : "\r\n");
  }
  bool fills_cache() const { return GetParam().method == "GET"; }

  std::uint16_t admin_port_ = 0;
};

std::string path_name(const ::testing::TestParamInfo<Path>& p) {
  return p.param.mode + p.param.method;
}

std::string piece(char c, std::size_t n) { return std::string(n, c); }

TEST_P(StreamingTest, AServerSentEventArrivesWhileTheOriginHoldsTheNext) {
  const std::string first = "data: one\n\n";
  const std::string second = "data: two\n\n";
  ScriptedOrigin origin(
      {Send{response_head({"Content-Type: text/event-stream", "Cache-Control: no-cache",
                           "Transfer-Encoding: chunked"}) +
            chunk(first)},
       Hold{}, Send{chunk(second) + chunk("")}});
  ASSERT_TRUE(start(origin));
  StreamClient client(port_, request(origin, "/events"));
  client.read_body(first.size(), kWait);
  EXPECT_EQ(client.body(), first) << "the first event must not wait for the second";
  origin.gate().open();
  client.read_to_end(kWait);
  EXPECT_TRUE(client.complete());
  EXPECT_EQ(client.body(), first + second);
}

TEST_P(StreamingTest, LengthDelimitedPiecesArriveWhileTheOriginHolds) {
  ScriptedOrigin origin(
      {Send{response_head({"Content-Length: 20000", "Cache-Control: max-age=60"}) +
            piece('a', 10'000)},
       Hold{}, Send{piece('b', 10'000)}});
  ASSERT_TRUE(start(origin));
  StreamClient client(port_, request(origin, "/pieces"));
  client.read_body(10'000, kWait);
  EXPECT_EQ(client.body(), piece('a', 10'000));
  origin.gate().open();
  client.read_to_end(kWait);
  ASSERT_TRUE(client.complete());
  EXPECT_EQ(client.body(), piece('a', 10'000) + piece('b', 10'000));
  if (fills_cache()) {  // relayed in pieces, still stored whole
    StreamClient again(port_, request(origin, "/pieces"));
    again.read_to_end(kWait);
    EXPECT_EQ(again.x_cache(), "HIT");
    EXPECT_EQ(again.body(), client.body());
    EXPECT_EQ(origin.requests(), 1);
  }
}

TEST_P(StreamingTest, CloseDelimitedPiecesArriveWhileTheOriginHolds) {
  ScriptedOrigin origin(
      {Send{response_head({"Connection: close", "Cache-Control: max-age=60"}) + piece('a', 10'000)},
       Hold{}, Send{piece('b', 10'000)}});
  ASSERT_TRUE(start(origin));
  StreamClient client(port_, request(origin, "/until-close"));
  client.read_body(10'000, kWait);
  EXPECT_EQ(client.body(), piece('a', 10'000));
  origin.gate().open();
  client.read_to_end(kWait);
  EXPECT_TRUE(client.complete());  // RFC 9112 §6.3: the close ends such a body
  EXPECT_EQ(client.body(), piece('a', 10'000) + piece('b', 10'000));
}

TEST_P(StreamingTest, OriginClosingMidLengthBodyTruncatesTheClientAndStoresNothing) {
  ScriptedOrigin origin(
      {Send{response_head({"Content-Length: 100000", "Cache-Control: max-age=60"}) +
            piece('a', 40'000)}});
  ASSERT_TRUE(start(origin));
  StreamClient client(port_, request(origin, "/cut"));
  client.read_to_end(kWait);
  EXPECT_EQ(client.body().size(), 40'000U);
  EXPECT_TRUE(client.truncated()) << "the client must see fewer bytes than announced, then close";
  StreamClient again(port_, request(origin, "/cut"));
  again.read_to_end(kWait);
  EXPECT_EQ(again.x_cache(), "MISS");
  EXPECT_EQ(again.body().size(), 40'000U);
  EXPECT_EQ(origin.requests(), 2);
  // A degraded path: counted, and logged (at most once a second).
  EXPECT_EQ(truncated_total(), 2);
  EXPECT_TRUE(daemon_->wait_for_line("ended the body of .*/cut after 40000 bytes",
                                     std::chrono::seconds(5), Output::err))
      << daemon_log();
}

TEST_P(StreamingTest, OriginClosingMidChunkedBodyTruncatesTheClientAndStoresNothing) {
  ScriptedOrigin origin(
      {Send{response_head({"Transfer-Encoding: chunked", "Cache-Control: max-age=60"}) +
            chunk(piece('a', 20'000)) + chunk(piece('b', 20'000))}});
  ASSERT_TRUE(start(origin));
  StreamClient client(port_, request(origin, "/cut-chunked"));
  client.read_to_end(kWait);
  EXPECT_EQ(client.body(), piece('a', 20'000) + piece('b', 20'000));
  EXPECT_TRUE(client.truncated()) << "no final chunk, then close";
  StreamClient again(port_, request(origin, "/cut-chunked"));
  again.read_to_end(kWait);
  EXPECT_EQ(again.x_cache(), "MISS");
  EXPECT_EQ(origin.requests(), 2);
}

TEST_P(StreamingTest, OriginStallingMidBodyTimesOutTruncatedAndStoresNothing) {
  ScriptedOrigin origin(
      {Send{response_head({"Content-Length: 40000", "Cache-Control: max-age=60"}) +
            piece('a', 10'000)},
       Hold{}, Send{piece('b', 30'000)}});
  ASSERT_TRUE(start(origin, R"("limits": {"upstream_io_timeout_ms": 500},)"));
  StreamClient client(port_, request(origin, "/stall"));
  client.read_to_end(kWait);
  EXPECT_EQ(client.body(), piece('a', 10'000));
  EXPECT_TRUE(client.truncated());
  origin.gate().open();  // the next answer is whole: only the cut one must not be stored
  StreamClient again(port_, request(origin, "/stall"));
  again.read_to_end(kWait);
  EXPECT_EQ(again.x_cache(), "MISS");
  EXPECT_TRUE(again.complete());
  EXPECT_EQ(origin.requests(), 2);
}

INSTANTIATE_TEST_SUITE_P(Paths, StreamingTest,
                         ::testing::Values(Path{"forward", "GET"}, Path{"forward", "POST"},
                                           Path{"reverse", "GET"}, Path{"reverse", "POST"}),
                         path_name);

// The copy for the store stops at cache.max_object_bytes (8 MiB in the
// fixture); the client still gets the whole body.
TEST_F(ProxyTest, ABodyOverMaxObjectBytesIsRelayedWholeAndNotStored) {
  ASSERT_TRUE(start_proxy());
  const std::string path = "/obj/big?max_age=60&size=" + std::to_string(8 * 1024 * 1024 + 1);
  for (int i = 0; i < 2; ++i) {
    const auto r = fetch(path);
    EXPECT_EQ(r.body.size(), 8U * 1024 * 1024 + 1);
    EXPECT_EQ(r.header("X-Cache").value_or(""), "MISS");
  }
}

}  // namespace
}  // namespace sumcache::testing
