// Idle connections to the admin port cannot lock out health checks
// (docs/admin.md, "Health checks always get through").
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "tests/daemon/integration/admin_node.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

constexpr int kAdminSessionCap = 64;  // daemon/admin/admin_server.cc

// A connected TCP socket that never sends a byte; -1 when connect fails.
int idle_connection(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// True when the server has closed `fd` (EOF or reset) within `timeout`.
bool closed_by_server(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) != 1) return false;
  char byte = 0;
  return ::recv(fd, &byte, 1, MSG_DONTWAIT) <= 0;
}

TEST(AdminHealth, HealthzAnswersWithinASecondWhileTheCapIsHeldByIdleConnections) {
  AdminNode node;
  ASSERT_TRUE(node.start()) << node.failure;
  std::vector<int> idle;
  for (int i = 0; i < kAdminSessionCap; ++i) {
    const int fd = idle_connection(node.admin_port());
    ASSERT_GE(fd, 0) << "connection " << i;
    idle.push_back(fd);
  }
  // Every one of them is a session by the time /stats answers on a connection of its own...
  ASSERT_TRUE(node.admin("/stats").ok());
  for (int round = 0; round < 3; ++round) {
    const auto start = std::chrono::steady_clock::now();
    auto health = node.admin("/healthz");
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(health.ok()) << "round " << round << ": " << health.error().message() << "\n"
                             << node.daemon_log();
    EXPECT_EQ(health->status, 200U);
    EXPECT_LT(took, 1s) << "round " << round;
  }
  // ...and the ones closed to make room were the idle ones opened first.
  EXPECT_TRUE(closed_by_server(idle.front(), 2s));
  EXPECT_FALSE(closed_by_server(idle.back(), 100ms));
  auto metrics = node.admin("/metrics");
  ASSERT_TRUE(metrics.ok());
  EXPECT_NE(metrics->body.find("sumcache_admin_sessions_closed_total "), std::string::npos);
  EXPECT_EQ(metrics->body.find("sumcache_admin_sessions_closed_total 0\n"), std::string::npos)
      << metrics->body.substr(0, 200);
  EXPECT_NE(node.daemon_log().find("closed the one idle longest"), std::string::npos)
      << node.daemon_log();
  for (const int fd : idle) ::close(fd);
}

}  // namespace
}  // namespace sumcache::testing
