// Out of descriptors (docs/reliability.md, "Out of descriptors"): a real node whose
// RLIMIT_NOFILE the test lowers (prlimit(2) on the child) below what it holds, so that every
// accept fails with EMFILE while clients wait in the listen queues of the proxy port and the
// peer listener. The node must pause rather than spin (its CPU time stays a small part of the
// wall time), count the failures in /metrics, and serve the waiting clients once the limit is
// raised again.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "tests/daemon/integration/cluster_fixture.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A connected loopback socket; fd < 0 when the connect failed.
struct Connection {
  explicit Connection(std::uint16_t port) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ~Connection() {
    if (fd >= 0) ::close(fd);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool send(const std::string& data) const {
    return ::send(fd, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
  }
  // What arrives until the peer closes or `timeout` passes.
  std::string read_all(std::chrono::milliseconds timeout) const {
    std::string out;
    const auto deadline = Clock::now() + timeout;
    char buf[4096];
    while (Clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const auto n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }
  int fd = -1;
};

// The descriptor number the process's next open would take: the lowest one free. A limit at
// it refuses every new descriptor (RLIMIT_NOFILE bounds the number, not the count).
rlim_t lowest_free_descriptor(pid_t pid) {
  std::set<rlim_t> used;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    used.insert(std::stoull(entry.path().filename().string()));
  }
  rlim_t free = 0;
  while (used.contains(free)) ++free;
  return free;
}

// User plus system CPU time of the process, from /proc/PID/stat (fields 14 and 15).
std::chrono::milliseconds cpu_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The command name may hold spaces: fields are counted after its closing parenthesis.
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  std::uint64_t utime = 0;
  std::uint64_t stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return std::chrono::milliseconds((utime + stime) * 1000 / ::sysconf(_SC_CLK_TCK));
}

std::uint64_t accept_failures(const std::string& metrics, const std::string& listener) {
  const std::regex sample("sumcache_accept_failures_total\\{listener=\"" + listener +
                          "\",reason=\"resources\"\\} ([0-9]+)");
  std::smatch m;
  return std::regex_search(metrics, m, sample) ? std::stoull(m[1]) : 0;
}

class AcceptLimitsTest : public ClusterTest {};

TEST_F(AcceptLimitsTest, OutOfDescriptorsTheNodePausesCountsAndServesOnceTheyFree) {
  // Summaries rarely (the fixture expires them after 5 s): their sockets would come and go
  // while the limit is low.
  ASSERT_TRUE(start_cluster({.nodes = 2, .update_interval_ms = 4000}));
  ASSERT_EQ(fetch(0, "/obj/warm?max_age=600").status, 200U);
  const pid_t pid = nodes_[0].process->pid();
  // The warm-up's client connection closes on the node's side soon after the response: let it,
  // so that its descriptor is not a free number below the limit set next.
  std::this_thread::sleep_for(500ms);

  rlimit original{};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, nullptr, &original), 0) << std::strerror(errno);
  // No room for one more descriptor: every accept fails with EMFILE.
  const rlimit low{lowest_free_descriptor(pid), original.rlim_max};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &low, nullptr), 0) << std::strerror(errno);
  struct Restore {
    pid_t pid;
    rlimit limit;
    ~Restore() { ::prlimit(pid, RLIMIT_NOFILE, &limit, nullptr); }
  } restore{pid, original};

  // Completed by the kernel into the listen queues; the node cannot take them yet.
  Connection proxy(nodes_[0].http_port);
  Connection peer(nodes_[0].peer_port);
  ASSERT_GE(proxy.fd, 0);
  ASSERT_GE(peer.fd, 0);
  ASSERT_TRUE(
      proxy.send("GET " + origin_url("/obj/after?max_age=600") + " HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(peer.send("GET /summary HTTP/1.1\r\nHost: x\r\n\r\n"));

  const auto cpu_before = cpu_time(pid);
  const auto wall_before = Clock::now();
  std::this_thread::sleep_for(2s);
  const auto cpu = cpu_time(pid) - cpu_before;
  const auto wall =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - wall_before);
  RecordProperty("daemon_cpu_ms", static_cast<int>(cpu.count()));
  RecordProperty("wall_ms", static_cast<int>(wall.count()));
  // A listener that retries at once spins a whole core; paused ones wake a few times a second.
  EXPECT_LT(cpu.count(), wall.count() / 5)
      << "CPU " << cpu.count() << " ms in " << wall.count() << " ms of wall time\n"
      << log_of(0);

  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &original, nullptr), 0) << std::strerror(errno);
  // The longest pause is 1 s: both waiting clients are answered soon after.
  const std::string proxied = proxy.read_all(5s);
  EXPECT_TRUE(proxied.starts_with("HTTP/1.1 200")) << proxied;
  const std::string answered = peer.read_all(5s);
  EXPECT_TRUE(answered.starts_with("HTTP/1.1 ")) << answered;

  const std::string metrics = admin(0, "/metrics", "GET", "", true).body;
  EXPECT_GT(accept_failures(metrics, "proxy"), 0U) << metrics;
  EXPECT_GT(accept_failures(metrics, "peer"), 0U) << metrics;
  // One line a second per listener at most, with the count held back.
  const std::string log = log_of(0);
  EXPECT_NE(log.find("peer listener 127.0.0.1:" + std::to_string(nodes_[0].peer_port) +
                     ": accept failed (resources)"),
            std::string::npos)
      << log;
  EXPECT_LE(count_matches(log, "accept failed"), 30U) << log;
  EXPECT_EQ(fetch(0, "/obj/later?max_age=600").status, 200U);
}

}  // namespace
}  // namespace sumcache::testing
