#include "tests/support/ports.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <system_error>

namespace sumcache::testing {

namespace {

// Owns a socket descriptor for the length of one helper call.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Fills `addr` from an IPv4 or IPv6 literal; returns its length, or 0 if `host` is neither.
socklen_t make_address(const std::string& host, std::uint16_t port, sockaddr_storage& addr) {
  addr = {};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    return sizeof(sockaddr_in);
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (::inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    return sizeof(sockaddr_in6);
  }
  return 0;
}

}  // namespace

std::uint16_t free_port() {
  // The start of the ephemeral range; Linux's default when it cannot be read.
  unsigned low = 32768;
  if (std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range"); range) range >> low;
  constexpr unsigned kFirst = 10000;
  if (low <= kFirst + 1000) low = 65536;  // an unusual setup: take any unprivileged port
  static std::mutex mutex;
  static std::mt19937 random(std::random_device{}());
  static std::set<std::uint16_t> given;  // never the same port twice to one process
  std::lock_guard lock(mutex);
  std::uniform_int_distribution<unsigned> pick(kFirst, low - 1);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const auto port = static_cast<std::uint16_t>(pick(random));
    if (given.contains(port)) continue;
    Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) throw std::system_error(errno, std::system_category(), "free_port");
    sockaddr_storage addr;
    const socklen_t len = make_address("127.0.0.1", port, addr);
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0) continue;
    given.insert(port);
    return port;
  }
  throw std::system_error(EADDRINUSE, std::system_category(), "free_port: no free port found");
}

bool port_accepts(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout) {
  sockaddr_storage addr;
  const socklen_t len = make_address(host, port, addr);
  if (len == 0) return false;
  // Non-blocking connect so that a full backlog cannot stall the caller past its timeout.
  Fd fd(::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return false;
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), len) == 0) return true;
  if (errno != EINPROGRESS) return false;
  pollfd pfd{fd.get(), POLLOUT, 0};
  if (::poll(&pfd, 1, static_cast<int>(timeout.count())) != 1) return false;
  int error = 0;
  socklen_t error_len = sizeof error;
  ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &error_len);
  return error == 0;
}

}  // namespace sumcache::testing
