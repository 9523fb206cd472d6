// Message framing through a real sumcached (RFC 9112 §6): requests whose body
// boundary is ambiguous are refused before anything reaches the origin, so no
// second request can hide in a body (request smuggling); upstream responses
// with bad framing become a 502 that is neither relayed nor cached.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "tests/daemon/admin/metric_samples.h"
#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/daemon/integration/scripted_origin.h"
#include "tests/support/raw_client.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

// An origin that answers each request with exact bytes chosen by its path,
// for framings no server library would produce. It never closes a connection
// itself, so a proxy that kept one would be seen reusing it.
class RawOrigin {
 public:
  struct Seen {
    std::string path;
    int connection = 0;  // in accept order
  };

  explicit RawOrigin(std::map<std::string, std::string, std::less<>> replies)
      : replies_(std::move(replies)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof addr;
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), size) != 0 ||
        ::listen(listener_, 16) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
      ADD_FAILURE() << "raw origin: cannot listen";
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~RawOrigin() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (listener_ >= 0) ::close(listener_);
  }
  RawOrigin(const RawOrigin&) = delete;
  RawOrigin& operator=(const RawOrigin&) = delete;

  std::uint16_t port() const { return port_; }
  std::vector<Seen> seen(std::string_view path) const {
    std::lock_guard lock(mutex_);
    std::vector<Seen> out;
    for (const Seen& s : seen_) {
      if (s.path == path) out.push_back(s);
    }
    return out;
  }

 private:
  struct Connection {
    int fd = -1;
    int id = 0;
    std::string in;
  };
  static constexpr std::size_t kMaxConnections = 64;

  // One thread, poll with a short timeout: bounded by stop_, no blocking read.
  void serve() {
    std::vector<Connection> connections;
    int next_id = 0;
    while (!stop_) {
      std::vector<pollfd> fds{{listener_, POLLIN, 0}};
      for (const auto& c : connections) fds.push_back({c.fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), 20) <= 0) continue;
      if ((fds[0].revents & POLLIN) != 0) {
        const int fd = ::accept(listener_, nullptr, nullptr);
        if (fd >= 0 && connections.size() < kMaxConnections) {
          connections.push_back({fd, next_id++, {}});
        } else if (fd >= 0) {
          ::close(fd);
        }
      }
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        Connection& c = connections[i - 1];
        char buffer[4096];
        const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
        if (n <= 0) {
          ::close(c.fd);
          c.fd = -1;
          continue;
        }
        c.in.append(buffer, static_cast<std::size_t>(n));
        answer(c);
      }
      std::erase_if(connections, [](const Connection& c) { return c.fd < 0; });
    }
    for (const auto& c : connections) ::close(c.fd);
  }

  // Requests from the proxy here are GETs: a head and no body.
  void answer(Connection& c) {
    for (auto end = c.in.find("\r\n\r\n"); end != std::string::npos; end = c.in.find("\r\n\r\n")) {
      const std::string line = c.in.substr(0, c.in.find("\r\n"));
      c.in.erase(0, end + 4);
      const auto start = line.find(' ') + 1;
      std::string path = line.substr(start, line.find(' ', start) - start);
      path = path.substr(0, path.find('?'));
      {
        std::lock_guard lock(mutex_);
        seen_.push_back({path, c.id});
      }
      const auto it = replies_.find(path);
      const std::string reply =
          it != replies_.end() ? it->second : "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
      if (::send(c.fd, reply.data(), reply.size(), MSG_NOSIGNAL) !=
          static_cast<ssize_t>(reply.size())) {
        ::close(c.fd);
        c.fd = -1;
        return;
      }
    }
  }

  const std::map<std::string, std::string, std::less<>> replies_;
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<Seen> seen_;
};

class Framing : public ProxyTest {
 protected:
  // The request target and Host for `path` in the current mode.
  std::string target(const std::string& path) const {
    return options_.mode == "forward" ? origin_url(path) : path;
  }
  std::string host() const { return "127.0.0.1:" + std::to_string(origin_.port()); }

  // A request the origin must never see, hidden in a body.
  std::string smuggled() const {
    return "GET " + target("/smuggled") + " HTTP/1.1\r\nHost: " + host() + "\r\n\r\n";
  }

  RawReply send_raw(const std::string& bytes) {
    auto reply = raw_exchange("127.0.0.1", port_, bytes, 3s);
    EXPECT_TRUE(reply.ok());
    return reply.ok() ? *reply : RawReply{};
  }

  // Sends each payload on its own connection: each must get `status` with
  // Connection: close, and the connection must close.
  struct Payload {
    std::string name;
    std::string bytes;
    unsigned status = 400;
  };
  void expect_refused(const std::vector<Payload>& payloads) {
    for (const auto& p : payloads) {
      SCOPED_TRACE(p.name);
      const RawReply reply = send_raw(p.bytes);
      const auto responses = parse_responses(reply.data);
      ASSERT_FALSE(responses.empty()) << reply.data;
      EXPECT_EQ(responses[0].status, p.status) << responses[0].body;
      EXPECT_EQ(responses[0].header("Connection").value_or(""), "close");
      EXPECT_NE(responses[0].body.find(": "), std::string::npos) << "no reason";
      EXPECT_EQ(responses.size(), 1U) << reply.data;
      EXPECT_TRUE(reply.peer_closed) << "the connection stayed open";
    }
  }

  // The smuggling payloads of issue 11, and the framing rules around them.
  std::vector<Payload> smuggling_payloads() const {
    const std::string s = smuggled();
    const std::string n = std::to_string(s.size());
    auto post = [this](const std::string& version, const std::string& fields) {
      return "POST " + target("/outer") + " HTTP/" + version + "\r\nHost: " + host() + "\r\n" +
             fields + "\r\n";
    };
    return {
        {"TE: chunked, gzip", post("1.1", "Transfer-Encoding: chunked, gzip\r\n") + s},
        {"TE: xchunked", post("1.1", "Transfer-Encoding: xchunked\r\n") + s},
        {"TE: gzip", post("1.1", "Transfer-Encoding: gzip\r\n") + s},
        {"TE: identity", post("1.1", "Transfer-Encoding: identity\r\n") + s},
        {"TE: empty", post("1.1", "Transfer-Encoding: \r\n") + s},
        {"TE: chunked, chunked", post("1.1", "Transfer-Encoding: chunked, chunked\r\n") + s},
        {"TE: xchunked with CL",
         post("1.1", "Transfer-Encoding: xchunked\r\nContent-Length: " + n + "\r\n") + s},
        {"TE: gzip, chunked (501)",
         post("1.1", "Transfer-Encoding: gzip, chunked\r\n") + "0\r\n\r\n" + s, 501},
        {"TE then CL", post("1.1", "Transfer-Encoding: chunked\r\nContent-Length: " + n + "\r\n") +
                           "0\r\n\r\n" + s},
        {"CL then TE", post("1.1", "Content-Length: " + n + "\r\nTransfer-Encoding: chunked\r\n") +
                           "0\r\n\r\n" + s},
        {"TE in HTTP/1.0",
         post("1.0", "Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n") + "0\r\n\r\n" + s},
        {"CL twice, equal", post("1.1", "Content-Length: 0\r\nContent-Length: 0\r\n") + s},
        {"CL list", post("1.1", "Content-Length: 0, 0\r\n") + s},
        {"CL twice, differing",
         post("1.1", "Content-Length: 0\r\nContent-Length: " + n + "\r\n") + s},
        {"CL with a sign", post("1.1", "Content-Length: +0\r\n") + s},
        {"two Host lines", post("1.1", "Host: other.test\r\nContent-Length: 0\r\n") + s},
    };
  }

  void expect_origin_saw_nothing() {
    // A request that does reach the origin, after all the others: anything
    // smuggled would have been forwarded before it.
    EXPECT_EQ(fetch("/obj/after?size=5").status, 200U);
    EXPECT_EQ(origin_.log().count("/smuggled"), 0U);
    EXPECT_EQ(origin_.log().count("/outer"), 0U);
    EXPECT_EQ(origin_.log().count("/obj/after"), 1U);
  }
};

TEST_F(Framing, ForwardProxyRefusesSmugglingPayloadsAndClosesRfc9112_6_3) {
  ASSERT_TRUE(start_proxy());
  expect_refused(smuggling_payloads());
  expect_origin_saw_nothing();
}

TEST_F(Framing, ReverseProxyRefusesSmugglingPayloadsAndClosesRfc9112_6_3) {
  ASSERT_TRUE(start_proxy({.mode = "reverse"}));
  expect_refused(smuggling_payloads());
  expect_origin_saw_nothing();
}

TEST_F(Framing, Http11RequestWithoutHostIs400Rfc9112_3_2) {
  ASSERT_TRUE(start_proxy());
  expect_refused({{"no Host", "GET " + origin_url("/outer") + " HTTP/1.1\r\n\r\n"},
                  // Beast refuses it itself ("bad version") before the framing rules see it.
                  {"HTTP/2.0 in a text request line",
                   "GET " + origin_url("/outer") + " HTTP/2.0\r\nHost: " + host() + "\r\n\r\n"}});
  // HTTP/1.0 may omit it (RFC 9112 §3.2).
  const RawReply old = send_raw("GET " + origin_url("/obj/old?size=3") + " HTTP/1.0\r\n\r\n");
  const auto responses = parse_responses(old.data);
  ASSERT_EQ(responses.size(), 1U) << old.data;
  EXPECT_EQ(responses[0].status, 200U);
  expect_origin_saw_nothing();
}

// What Beast's parser lets through or refuses on its own, byte by byte: each
// is refused with a 4xx and a closed connection, or shown to be harmless.
TEST_F(Framing, LenientSyntaxIsRefusedOrHarmlessRfc9112_5_and_7_1) {
  ASSERT_TRUE(start_proxy({.extra_json = R"("limits": {"client_request_timeout_ms": 1000,
                                                        "max_header_bytes": 4096},)"}));
  const std::string head = "POST " + target("/outer") + " HTTP/1.1\r\nHost: " + host() + "\r\n";
  const std::string chunked = head + "Transfer-Encoding: chunked\r\n\r\n";
  const std::string s = smuggled();
  expect_refused({
      {"space before the colon", head + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n" + s},
      {"NUL in a value", head + "X-A: a" + std::string(1, '\0') + "b\r\n\r\n" + s},
      {"CR in a value", head + "X-A: a\rb\r\n\r\n" + s},
      {"bare LF ending the head", head + "X-A: a\n\n" + s},
      {"obs-fold turning chunked into a list",
       head + "Transfer-Encoding: gzip\r\n chunked\r\n\r\n" + "0\r\n\r\n" + s},
  });
  // Past the head, the body is refused while it streams: the outer request has
  // reached the origin by then, but nothing after it on the connection does.
  expect_refused({
      {"chunk size overflow", chunked + "10000000000000000\r\nx\r\n0\r\n\r\n" + s},
      {"chunk size with 0x", chunked + "0x5\r\nhello\r\n0\r\n\r\n" + s},
      {"bare LF after a chunk size", chunked + "5\nhello\r\n0\r\n\r\n" + s},
      {"control octet in a chunk extension", chunked + "5;a\x01\r\nhello\r\n0\r\n\r\n" + s},
      {"endless chunk extension", chunked + "5;a=" + std::string(100 * 1024, 'a')},
      {"endless trailer", chunked + "5\r\nhello\r\n0\r\nX-T: " + std::string(100 * 1024, 'a')},
      {"Content-Length in the trailer",
       chunked + "5\r\nhello\r\n0\r\nContent-Length: 5\r\n\r\n" + s},
  });
  EXPECT_EQ(origin_.log().count("/smuggled"), 0U);
  // Harmless: a folded value reaches the origin unfolded (RFC 9112 §5.2 allows
  // replacing obs-fold with SP), a chunk extension and a trailer are dropped.
  const RawReply folded = send_raw("GET " + target("/echo") + " HTTP/1.1\r\nHost: " + host() +
                                   "\r\nX-Folded: a\r\n b\r\nConnection: close\r\n\r\n");
  ASSERT_FALSE(parse_responses(folded.data).empty()) << folded.data;
  EXPECT_NE(folded.data.find("\"a b\""), std::string::npos) << folded.data;
  const RawReply extended = send_raw("POST " + target("/echo") + " HTTP/1.1\r\nHost: " + host() +
                                     "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                                     "5;name=\"va;lue\"\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n");
  const auto answers = parse_responses(extended.data);
  ASSERT_EQ(answers.size(), 1U) << extended.data;
  EXPECT_EQ(answers[0].status, 200U);
  const auto echoed = origin_.log().entries().back();
  EXPECT_EQ(echoed.body_bytes, 5U);
  EXPECT_FALSE(find_header(echoed.headers, "X-Trailer"));
}

class UpstreamFraming : public Framing {
 protected:
  static std::string cacheable(const std::string& fields, const std::string& body,
                               const std::string& version = "1.1") {
    return "HTTP/" + version + " 200 OK\r\nCache-Control: max-age=600\r\n" + fields + "\r\n" + body;
  }

  RawOrigin raw_{{
      {"/xchunked-with-length",
       cacheable("Transfer-Encoding: xchunked\r\nContent-Length: 5\r\n", "hello")},
      {"/gzip-then-chunked",
       cacheable("Transfer-Encoding: gzip, chunked\r\n", "5\r\nhello\r\n0\r\n\r\n")},
      {"/chunked-twice",
       cacheable("Transfer-Encoding: chunked, chunked\r\n", "5\r\nhello\r\n0\r\n\r\n")},
      {"/empty-te", cacheable("Transfer-Encoding: \r\nContent-Length: 5\r\n", "hello")},
      {"/http10-chunked",
       cacheable("Transfer-Encoding: chunked\r\n", "5\r\nhello\r\n0\r\n\r\n", "1.0")},
      {"/chunked-with-length",
       cacheable("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", "5\r\nhello\r\n0\r\n\r\n")},
      {"/differing-lengths", cacheable("Content-Length: 5\r\nContent-Length: 6\r\n", "hello!")},
      {"/differing-list", cacheable("Content-Length: 5, 6\r\n", "hello!")},
      {"/equal-lengths", cacheable("Content-Length: 5\r\nContent-Length: 5, 5\r\n", "hello")},
      {"/good", cacheable("Content-Length: 5\r\n", "hello")},
      {"/two-connection-lines",
       "HTTP/1.1 200 OK\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n"
       "Connection: close\r\nContent-Length: 5\r\n\r\nhello"},
  }};

  ClientResponse get(const std::string& path) {
    HttpClient client({.host = "127.0.0.1", .port = port_, .reuse_connection = false});
    auto r = client.send({.target = "http://127.0.0.1:" + std::to_string(raw_.port()) + path});
    EXPECT_TRUE(r.ok()) << path;
    return r.ok() ? std::move(r).value() : ClientResponse{};
  }
};

TEST_F(UpstreamFraming, BadResponseFramingIs502NeverCachedAndTheConnectionDroppedRfc9112_6_3) {
  // The short timeout only bounds the runs before the fix, which waited for the end of a body.
  ASSERT_TRUE(start_proxy({.extra_json = R"("limits": {"upstream_io_timeout_ms": 1000},)"}));
  for (const char* path :
       {"/xchunked-with-length", "/gzip-then-chunked", "/chunked-twice", "/empty-te",
        "/http10-chunked", "/chunked-with-length", "/differing-lengths", "/differing-list"}) {
    SCOPED_TRACE(path);
    for (int attempt = 0; attempt < 2; ++attempt) {
      const auto r = get(path);
      EXPECT_EQ(r.status, 502U) << r.body;
      EXPECT_EQ(r.body.find("hello"), std::string::npos) << r.body;
    }
    // Not stored: the second request went to the origin again, and not on the
    // first one's connection, which was dropped instead of pooled.
    const auto seen = raw_.seen(path);
    EXPECT_EQ(seen.size(), 2U);
    if (seen.size() == 2) {
      EXPECT_NE(seen[0].connection, seen[1].connection);
    }
  }
  // Good responses keep working, and are cached.
  EXPECT_EQ(get("/good").body, "hello");
  EXPECT_EQ(get("/good").header("X-Cache").value_or(""), "HIT");
  EXPECT_EQ(raw_.seen("/good").size(), 1U);
}

TEST_F(UpstreamFraming, EqualContentLengthsAreOneRfc9112_6_3) {
  ASSERT_TRUE(start_proxy());
  const RawReply reply =
      send_raw("GET http://127.0.0.1:" + std::to_string(raw_.port()) +
               "/equal-lengths HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const auto responses = parse_responses(reply.data);
  ASSERT_EQ(responses.size(), 1U) << reply.data;
  EXPECT_EQ(responses[0].status, 200U);
  EXPECT_EQ(responses[0].body, "hello");
  const auto head = reply.data.substr(0, reply.data.find("\r\n\r\n"));
  EXPECT_NE(head.find("Content-Length: 5\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("Content-Length", head.find("Content-Length") + 1), std::string::npos)
      << head;
}

TEST_F(UpstreamFraming, RefusalsAreCountedInMetricsAndLogged) {
  ProxyOptions options;
  options.admin_json = R"({"address": "127.0.0.1", "port": 0})";
  ASSERT_TRUE(start_proxy(options));
  auto admin_port =
      daemon_->wait_for_line("admin listening on 127\\.0\\.0\\.1:([0-9]+)", 10s, Output::err);
  ASSERT_TRUE(admin_port) << daemon_log();
  expect_refused({{"TE: gzip", "POST " + origin_url("/outer") + " HTTP/1.1\r\nHost: " + host() +
                                   "\r\nTransfer-Encoding: gzip\r\n\r\n" + smuggled()}});
  EXPECT_EQ(get("/chunked-twice").status, 502U);
  HttpClient admin({.host = "127.0.0.1",
                    .port = static_cast<std::uint16_t>(std::stoi((*admin_port)[1])),
                    .reuse_connection = false});
  auto metrics = admin.send({.target = "/metrics"});
  ASSERT_TRUE(metrics.ok());
  const auto m = metric_samples(metrics->body);
  EXPECT_EQ(m.at(R"(sumcache_framing_refused_total{message="request"})"), "1");
  EXPECT_EQ(m.at(R"(sumcache_framing_refused_total{message="response"})"), "1");
  EXPECT_NE(daemon_log().find(
                "refused a request from 127.0.0.1: Transfer-Encoding does not end in chunked"),
            std::string::npos)
      << daemon_log();
}

// Issue 27 item 6a: RFC 9112 §6.3 item 4 gives a response whose last coding
// is not chunked a length: it ends when the origin closes. It is relayed with
// its coding named (chunked added for an HTTP/1.1 client), and not stored, as
// a hit could not say how its body is coded. A request with it stays a 400.
TEST_F(Framing, ResponseCodedWithoutChunkedIsReadUntilCloseAndRelayedRfc9112_6_3) {
  const std::string coded = "\x1f\x8b coded bytes, read until the origin closes";
  ScriptedOrigin origin(
      {Send{"HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\n"
            "Transfer-Encoding: gzip\r\n\r\n" +
            coded}});
  ASSERT_TRUE(start_proxy());
  for (int attempt = 0; attempt < 2; ++attempt) {
    const RawReply reply =
        send_raw("GET " + origin.url() + "/coded HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const auto responses = parse_responses(reply.data);
    ASSERT_EQ(responses.size(), 1U) << reply.data;
    EXPECT_EQ(responses[0].status, 200U) << reply.data;
    EXPECT_EQ(responses[0].header("Transfer-Encoding").value_or(""), "gzip, chunked");
    EXPECT_EQ(responses[0].body, coded);
    EXPECT_EQ(responses[0].header("X-Cache").value_or(""), "MISS") << "a coded body was stored";
  }
  EXPECT_EQ(origin.requests(), 2);
  // An HTTP/1.0 client reads it until the proxy closes.
  const RawReply old = send_raw("GET " + origin.url() + "/coded HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(old.peer_closed);
  EXPECT_NE(old.data.find("\r\n\r\n" + coded), std::string::npos) << old.data;
  // Requests stay strict.
  expect_refused({{"TE: gzip request", "POST " + target("/outer") + " HTTP/1.1\r\nHost: " + host() +
                                           "\r\nTransfer-Encoding: gzip\r\n\r\nabc"}});
}

// Issue 27 item 6b: "Connection: close" on any line wins over "keep-alive" on
// another (RFC 9112 §9.3): the proxy answers with close and closes.
TEST_F(Framing, CloseOnAnyConnectionLineClosesTheClientConnectionRfc9112_9_3) {
  ASSERT_TRUE(start_proxy());
  for (const std::string lines : {"Connection: keep-alive\r\nConnection: close\r\n",
                                  "Connection: close\r\nConnection: keep-alive\r\n"}) {
    const RawReply reply = send_raw("GET " + target("/obj/two-lines?size=3") +
                                    " HTTP/1.1\r\nHost: " + host() + "\r\n" + lines + "\r\n");
    const auto responses = parse_responses(reply.data);
    ASSERT_EQ(responses.size(), 1U) << reply.data;
    EXPECT_EQ(responses[0].status, 200U);
    EXPECT_EQ(responses[0].header("Connection").value_or(""), "close") << lines;
    EXPECT_TRUE(reply.peer_closed) << "the connection stayed open after:\n" << lines;
  }
}

// The same on the upstream side: a response saying close on any line is not
// pooled, so the next request takes a new connection.
TEST_F(UpstreamFraming, CloseOnAnyConnectionLineOfAResponseIsNotPooledRfc9112_9_3) {
  ASSERT_TRUE(start_proxy());
  EXPECT_EQ(get("/two-connection-lines").body, "hello");
  EXPECT_EQ(get("/two-connection-lines").body, "hello");
  const auto seen = raw_.seen("/two-connection-lines");
  ASSERT_EQ(seen.size(), 2U);
  EXPECT_NE(seen[0].connection, seen[1].connection);
}

}  // namespace
}  // namespace sumcache::testing
