// What an origin's bytes may cost the proxy: a chunk line or a trailer section
// that never ends (RFC 9112 §7.1) is cut at upstream_read_bound instead of
// growing the read buffer for as long as the origin sends.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "tests/daemon/admin/metric_samples.h"
#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/raw_client.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

// An origin that answers its first request with `prefix`, then sends `filler`
// bytes without end: until a write fails (the proxy closed), kMaxSend bytes,
// or a deadline. It then closes and tells how much it sent.
class EndlessOrigin {
 public:
  static constexpr std::size_t kMaxSend = 64 * 1024 * 1024;

  EndlessOrigin(std::string prefix, char filler) : prefix_(std::move(prefix)), filler_(filler) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof addr;
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), size) != 0 ||
        ::listen(listener_, 4) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
      ADD_FAILURE() << "endless origin: cannot listen";
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~EndlessOrigin() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (listener_ >= 0) ::close(listener_);
  }
  EndlessOrigin(const EndlessOrigin&) = delete;
  EndlessOrigin& operator=(const EndlessOrigin&) = delete;

  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  // Waits (bounded) until the origin stopped sending; the bytes it sent.
  std::optional<std::size_t> sent(std::chrono::milliseconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done_ && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
    if (!done_) return std::nullopt;
    return sent_.load();
  }

 private:
  void serve() {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    int fd = -1;
    while (fd < 0 && !stop_ && std::chrono::steady_clock::now() < deadline) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 20) > 0) fd = ::accept(listener_, nullptr, nullptr);
    }
    if (fd >= 0) {
      if (read_head(fd, deadline)) send_endless(fd, deadline);
      ::close(fd);
    }
    done_ = true;
  }

  bool read_head(int fd, std::chrono::steady_clock::time_point deadline) {
    std::string in;
    while (in.find("\r\n\r\n") == std::string::npos && !stop_ &&
           std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      char buffer[4096];
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) return false;
      in.append(buffer, static_cast<std::size_t>(n));
    }
    return in.find("\r\n\r\n") != std::string::npos;
  }

  void send_endless(int fd, std::chrono::steady_clock::time_point deadline) {
    const std::string filler(16 * 1024, filler_);
    std::string_view pending = prefix_;
    while (sent_ < kMaxSend && !stop_ && std::chrono::steady_clock::now() < deadline) {
      if (pending.empty()) pending = filler;
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      if ((p.revents & (POLLERR | POLLHUP)) != 0) return;
      const ssize_t n = ::send(fd, pending.data(), pending.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n <= 0) return;
      sent_ += static_cast<std::size_t>(n);
      pending.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  const std::string prefix_;
  const char filler_;
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::atomic<std::size_t> sent_{0};
  std::thread thread_;
};

const std::string kChunkedHead =
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nCache-Control: max-age=60\r\n\r\n";

struct EndlessLine {
  const char* name;
  std::string prefix;
  char filler;
};

void PrintTo(const EndlessLine& line, std::ostream* os) { *os << line.name; }

class UpstreamBounds : public ProxyTest, public ::testing::WithParamInterface<EndlessLine> {};

TEST_P(UpstreamBounds, AnEndlessLineEndsTheResponseAtTheBoundCountedAndLogged) {
  EndlessOrigin hostile(GetParam().prefix, GetParam().filler);
  ProxyOptions options;
  options.admin_json = R"({"address": "127.0.0.1", "port": 0})";
  options.extra_json = R"("limits": {"upstream_io_timeout_ms": 20000},)";
  ASSERT_TRUE(start_proxy(options));
  auto admin_port =
      daemon_->wait_for_line("admin listening on 127\\.0\\.0\\.1:([0-9]+)", 10s, Output::err);
  ASSERT_TRUE(admin_port) << daemon_log();

  const std::string url = hostile.url("/endless");
  const auto started = std::chrono::steady_clock::now();
  auto reply =
      raw_exchange("127.0.0.1", port_, "GET " + url + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 15s);
  ASSERT_TRUE(reply.ok()) << reply.error().message();
  // The head was relayed before the line began: the client sees the body cut
  // (no last chunk) and the connection closed, well before the io timeout.
  EXPECT_EQ(reply->data.rfind("HTTP/1.1 200 OK\r\n", 0), 0U) << reply->data.substr(0, 200);
  EXPECT_EQ(reply->data.find("0\r\n\r\n"), std::string::npos);
  EXPECT_TRUE(reply->peer_closed);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);

  // The proxy stopped reading near the bound (64 KiB heads + 256 KiB), so the
  // origin's writes failed long before it could send everything; what it did
  // send past the bound sat in the kernel's socket buffers.
  const auto sent = hostile.sent(20s);
  ASSERT_TRUE(sent.has_value()) << "the origin never stopped";
  EXPECT_LT(*sent, EndlessOrigin::kMaxSend / 4);

  HttpClient admin({.host = "127.0.0.1",
                    .port = static_cast<std::uint16_t>(std::stoi((*admin_port)[1])),
                    .reuse_connection = false});
  auto metrics = admin.send({.target = "/metrics"});
  ASSERT_TRUE(metrics.ok());
  const auto m = metric_samples(metrics->body);
  EXPECT_EQ(m.contains("sumcache_upstream_line_too_long_total")
                ? m.at("sumcache_upstream_line_too_long_total")
                : "absent",
            "1");
  EXPECT_EQ(m.at("sumcache_upstream_truncated_total"), "1");
  EXPECT_NE(daemon_log().find("ended the body of " + url +
                              " after 0 bytes: a chunk line or trailer section longer than "
                              "the proxy holds"),
            std::string::npos)
      << daemon_log();

  // Nothing of it was stored: the next request goes to the origin (closed now).
  EXPECT_EQ(fetch("/obj/after?size=5").status, 200U);
}

INSTANTIATE_TEST_SUITE_P(
    Rfc9112_7_1, UpstreamBounds,
    ::testing::Values(EndlessLine{"ChunkExtension", kChunkedHead + "5;ext=", 'a'},
                      EndlessLine{"ChunkSize", kChunkedHead + "1", '0'},
                      EndlessLine{"TrailerSection", kChunkedHead + "0\r\nX-Trailer: ", 'a'}),
    [](const ::testing::TestParamInfo<EndlessLine>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace sumcache::testing
