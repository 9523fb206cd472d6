#include "tools/sumcachectl/admin_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/sumcachectl/ctl_error.h"

namespace sumcache::tools {
namespace {

using Clock = std::chrono::steady_clock;

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

std::error_code last_error() { return {errno, std::system_category()}; }

// Waits for `events` on fd until the deadline: timed_out when it passes first.
std::error_code wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return std::make_error_code(std::errc::timed_out);
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return {};
    if (n < 0 && errno != EINTR) return last_error();
  }
}

Result<sockaddr_storage> socket_address(const AdminAddress& address, socklen_t& length) {
  sockaddr_storage storage{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (::inet_pton(AF_INET, address.host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(address.port);
    length = sizeof(sockaddr_in);
  } else if (::inet_pton(AF_INET6, address.host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(address.port);
    length = sizeof(sockaddr_in6);
  } else {
    return make_error_code(CtlErrc::not_an_ip_literal);
  }
  return storage;
}

std::error_code connect_by(int fd, const AdminAddress& address, Clock::time_point deadline) {
  socklen_t length = 0;
  auto storage = socket_address(address, length);
  if (!storage) return storage.error();
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&*storage), length) == 0) return {};
  if (errno != EINPROGRESS) return last_error();
  if (auto ec = wait_for(fd, POLLOUT, deadline)) return ec;
  int error = 0;
  socklen_t size = sizeof error;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0) return last_error();
  return error == 0 ? std::error_code{} : std::error_code{error, std::system_category()};
}

std::error_code send_all(int fd, std::string_view data, Clock::time_point deadline) {
  while (!data.empty()) {
    if (auto ec = wait_for(fd, POLLOUT, deadline)) return ec;
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) return last_error();
    if (n > 0) data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Result<HttpReply> receive_reply(int fd, Clock::time_point deadline) {
  std::string raw;
  char buffer[16384];
  for (;;) {
    if (auto ec = wait_for(fd, POLLIN, deadline)) return ec;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) return last_error();
    raw.append(buffer, static_cast<std::size_t>(n));
    auto reply = parse_http_reply(raw, n == 0);
    if (reply || reply.error() != CtlErrc::incomplete_response || n == 0) return reply;
  }
}

std::string request_text(const AdminAddress& address, const AdminRequest& request) {
  const bool v6 = address.host.find(':') != std::string::npos;
  std::string text = request.method + " " + request.target + " HTTP/1.1\r\nHost: ";
  text += v6 ? "[" + address.host + "]" : address.host;
  text += ":" + std::to_string(address.port) + "\r\nUser-Agent: sumcachectl\r\n";
  text += "Accept: application/json\r\nConnection: close\r\n";
  if (!request.token.empty()) text += "Authorization: Bearer " + request.token + "\r\n";
  if (!request.content_type.empty()) text += "Content-Type: " + request.content_type + "\r\n";
  if (!request.body.empty() || request.method == "POST") {
    text += "Content-Length: " + std::to_string(request.body.size()) + "\r\n";
  }
  return text + "\r\n" + request.body;
}

}  // namespace

Result<HttpReply> admin_exchange(const AdminAddress& address, const AdminRequest& request,
                                 std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const int family = address.host.find(':') != std::string::npos ? AF_INET6 : AF_INET;
  Socket socket(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (socket.fd() < 0) return last_error();
  if (auto ec = connect_by(socket.fd(), address, deadline)) return ec;
  if (auto ec = send_all(socket.fd(), request_text(address, request), deadline)) return ec;
  return receive_reply(socket.fd(), deadline);
}

}  // namespace sumcache::tools
