// A hostile client on a real node's peer listener (docs/peers.md, "What the
// peer listener accepts"): a declared oversize body is refused before it is
// read, garbage after the fixed header, and neither many nor large requests
// cost the node memory or keep a real peer's summaries out. Raw sockets with
// a deadline on every read; node-b is the real peer of node-a.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <thread>

#include "tests/daemon/integration/cluster_fixture.h"
#include "tests/support/channel_head.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class Socket {
 public:
  // Connects to 127.0.0.1:port, from `from` when given; fd() < 0 on failure.
  explicit Socket(std::uint16_t port, const char* from = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) return;
    sockaddr_in local{};
    if (from != nullptr) {
      local.sin_family = AF_INET;
      ::inet_pton(AF_INET, from, &local.sin_addr);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) close();
    }
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) close();
  }
  ~Socket() { close(); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

  bool send(std::string_view data) {
    while (!data.empty()) {
      const auto n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  // Everything until the server closes or `timeout` passes; closed() says which.
  std::string read_all(std::chrono::milliseconds timeout) {
    std::string out;
    const auto deadline = Clock::now() + timeout;
    char buf[4096];
    while (Clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 1))) <= 0) continue;
      const auto n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }
  bool closed() const { return closed_; }
  // Sends up to `total` bytes of `chunk` repeated, as fast as the server takes
  // them, and stops as soon as it answers (or closes), or at `deadline`.
  void stream_until_answer(const std::string& chunk, std::size_t total,
                           Clock::time_point deadline) {
    for (std::size_t sent = 0; sent < total && Clock::now() < deadline;) {
      pollfd p{fd_, POLLIN | POLLOUT, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      if ((p.revents & (POLLIN | POLLERR | POLLHUP)) != 0) return;
      const auto n = ::send(fd_, chunk.data(), std::min(chunk.size(), total - sent),
                            MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return;
      if (n > 0) sent += static_cast<std::size_t>(n);
    }
  }

 private:
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
  bool closed_ = false;
};

// A summary POST's head, signed as `node` would sign it for node-a.
std::string post_head(std::uint64_t length, const std::string& node = "node-b") {
  return channel_head({.from = node, .length = length, .secret = ClusterOptions{}.secret});
}

// kB from /proc/PID/status ("VmRSS:", "VmHWM:"); -1 when unreadable.
long status_kb(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(field.size()));
  }
  return -1;
}

class PeerListener : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    ASSERT_TRUE(start_cluster({.nodes = 2, .extra_cluster_json = extra_json()}));
    port_ = nodes_[0].peer_port;
  }
  virtual std::string extra_json() const { return {}; }
  std::string metric(const std::string& reason) {
    const std::string body = admin(0, "/metrics").body;
    const std::string series = "sumcache_peer_listener_refused_total{reason=\"" + reason + "\"} ";
    const auto at = body.find(series);
    return at == std::string::npos
               ? "(none)"
               : body.substr(at + series.size(), body.find('\n', at) - at - series.size());
  }
  std::uint16_t port_ = 0;
};

TEST_F(PeerListener, ADeclaredFiftyMegabytesIsRefusedWith413BeforeABodyByte) {
  Socket s(port_);
  ASSERT_GE(s.fd(), 0);
  ASSERT_TRUE(s.send(post_head(50'000'000)));
  // Nothing but the head was sent: the answer cannot have waited for the body.
  const std::string reply = s.read_all(3s);
  EXPECT_EQ(reply.rfind("HTTP/1.1 413", 0), 0U) << reply;
  EXPECT_NE(reply.find("node \"node-b\""), std::string::npos) << reply;
  EXPECT_TRUE(s.closed());
  EXPECT_EQ(metric("too_large"), "1");
  EXPECT_NE(log_of(0).find("refused 127.0.0.1 (node \"node-b\"): 413"), std::string::npos)
      << log_of(0);
}

TEST_F(PeerListener, BadMagicIsRefusedAfterTheFixedHeader) {
  Socket s(port_);
  ASSERT_GE(s.fd(), 0);
  ASSERT_TRUE(s.send(post_head(500'000) + std::string(84, '\0')));
  const std::string reply = s.read_all(3s);
  EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0U) << reply;
  EXPECT_NE(reply.find("bad magic"), std::string::npos) << reply;
  EXPECT_TRUE(s.closed());
  EXPECT_EQ(metric("header"), "1");
}

TEST_F(PeerListener, RefusalsNameTheNodeThatWasSent) {
  {
    Socket s(port_);
    ASSERT_TRUE(s.send(post_head(200, "node-z") + std::string(200, 'x')));
    const std::string reply = s.read_all(3s);
    EXPECT_EQ(reply.rfind("HTTP/1.1 403", 0), 0U) << reply;
  }
  {
    // No Sumcache-Channel-Auth: refused before the node is looked at.
    Socket s(port_);
    ASSERT_TRUE(
        s.send("POST /sumcache/v1/summary HTTP/1.1\r\nHost: p\r\nContent-Length: 200\r\n\r\n" +
               std::string(200, 'x')));
    EXPECT_EQ(s.read_all(3s).rfind("HTTP/1.1 401", 0), 0U);
  }
  EXPECT_NE(log_of(0).find("(node \"node-z\"): 403 node \"node-z\" is not a peer"),
            std::string::npos)
      << log_of(0);
  EXPECT_EQ(log_of(0).find("node ?"), std::string::npos) << log_of(0);
  EXPECT_EQ(metric("node"), "1");
  EXPECT_EQ(metric("auth"), "1");
}

TEST_F(PeerListener, SixteenConcurrentSixtyMegabytePostsKeepMemoryBounded) {
  const pid_t pid = nodes_[0].process->pid();
  const long idle_kb = status_kb(pid, "VmRSS:");
  ASSERT_GT(idle_kb, 0);
  std::atomic<long> peak_kb{idle_kb};
  std::atomic<bool> done{false};
  std::thread sampler([&] {
    while (!done) {
      peak_kb = std::max(peak_kb.load(), status_kb(pid, "VmRSS:"));
      std::this_thread::sleep_for(10ms);
    }
  });
  std::atomic<int> answered{0};
  std::atomic<int> closed_unread{0};
  std::vector<std::thread> attackers;
  for (int i = 0; i < 16; ++i) {
    attackers.emplace_back([&] {
      Socket s(port_);
      if (s.fd() < 0) return;
      constexpr std::size_t kBody = 60'000'000;
      const std::string chunk(64 << 10, '\0');
      s.send(post_head(kBody));
      // The whole body as fast as the node reads it, unless it answers first; 20 s at most.
      s.stream_until_answer(chunk, kBody, Clock::now() + 20s);
      const std::string reply = s.read_all(5s);
      if (reply.rfind("HTTP/1.1 413", 0) == 0) ++answered;
      if (reply.empty() && s.closed()) ++closed_unread;  // over the connection cap
    });
  }
  for (auto& t : attackers) t.join();
  done = true;
  sampler.join();
  const long hwm_kb = status_kb(pid, "VmHWM:");
  std::printf("peer listener: idle RSS %ld kB, peak RSS sampled %ld kB, VmHWM %ld kB\n", idle_kb,
              peak_kb.load(), hwm_kb);
  // 6 slots (2 x 1 peer + 4): the rest are closed on accept, or evicted
  // before their head was read.
  EXPECT_GE(answered.load(), 1);
  EXPECT_EQ(answered.load() + closed_unread.load(), 16);
  EXPECT_LT(peak_kb.load() - idle_kb, 64 * 1024);
  EXPECT_LT(hwm_kb - idle_kb, 64 * 1024);
  EXPECT_TRUE(nodes_[0].process->running());
}

TEST_F(PeerListener, ConnectionsBeyondTheCapAreClosedAndARealPeerStillGetsThrough) {
  ASSERT_TRUE(wait_for_deliveries(1, 0, 1));
  // Two nodes: a cap of 2 x 1 peer + 4 = 6 connections.
  constexpr int kConnections = 200;
  std::vector<std::unique_ptr<Socket>> held;
  for (int i = 0; i < kConnections; ++i) held.push_back(std::make_unique<Socket>(port_));
  int closed = 0;
  for (auto& s : held) {
    s->read_all(20ms);
    if (s->closed()) ++closed;
  }
  EXPECT_GE(closed, kConnections - 6);
  // Each new one makes room by closing the oldest that has sent no verified head.
  EXPECT_GE(std::stoi(metric("connections")) + std::stoi(metric("evicted")), kConnections - 6);
  // The peer's pushes get through while every other connection is still open
  // here: an idle one that sent no head gives way (or has timed out by then).
  EXPECT_TRUE(wait_for_deliveries(1, 0, 2));
}

TEST_F(PeerListener, ASourceThatIsNotAPeersAddressIsClosedAtOnce) {
  Socket s(port_, "127.0.0.2");
  ASSERT_GE(s.fd(), 0);
  s.send(post_head(200));
  EXPECT_EQ(s.read_all(3s), "");
  EXPECT_TRUE(s.closed());
  EXPECT_EQ(metric("address"), "1");
  EXPECT_NE(log_of(0).find("refused 127.0.0.2: not a peer's address"), std::string::npos)
      << log_of(0);
}

// One summary every 10 s, and one at once: node-b's first push takes the token.
class PeerListenerRate : public PeerListener {
 protected:
  std::string extra_json() const override {
    return R"("peer_summary_rate": 0.1, "peer_summary_burst": 1,)";
  }
};

TEST_F(PeerListenerRate, APeerOverItsRateGets429WithRetryAfter) {
  const auto deadline = Clock::now() + 10s;
  while (metric("rate") == "0" && Clock::now() < deadline) std::this_thread::sleep_for(50ms);
  EXPECT_NE(metric("rate"), "0");
  Socket s(port_);
  ASSERT_TRUE(s.send(post_head(200)));
  const std::string reply = s.read_all(3s);
  EXPECT_EQ(reply.rfind("HTTP/1.1 429", 0), 0U) << reply;
  EXPECT_NE(reply.find("Retry-After: "), std::string::npos) << reply;
  EXPECT_NE(log_of(0).find("(node \"node-b\"): 429"), std::string::npos) << log_of(0);
}

}  // namespace
}  // namespace sumcache::testing
