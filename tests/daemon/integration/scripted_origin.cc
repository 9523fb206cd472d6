#include "tests/daemon/integration/scripted_origin.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

namespace sumcache::testing {

namespace {

constexpr auto kIoTimeout = std::chrono::seconds(5);
constexpr std::size_t kMaxRequestBytes = 64 * 1024;

// Waits for `events` on fd within the I/O timeout.
bool ready(int fd, short events) {
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, static_cast<int>(std::chrono::milliseconds(kIoTimeout).count())) == 1;
}

bool send_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    if (!ready(fd, POLLOUT)) return false;
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads one request: the head, then a body of its Content-Length (the tests
// send none or a small one). False on a timeout, a close or an oversized one.
bool read_request(int fd) {
  std::string data;
  char buf[4096];
  std::size_t body = 0;
  std::size_t head_end = std::string::npos;
  while (data.size() < kMaxRequestBytes) {
    if (head_end == std::string::npos) {
      head_end = data.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        head_end += 4;
        const auto at = data.find("\r\nContent-Length: ");
        if (at != std::string::npos && at < head_end) {
          body = std::stoul(data.substr(at + 18, data.find("\r\n", at + 2) - at - 18));
        }
      }
    }
    if (head_end != std::string::npos && data.size() >= head_end + body) return true;
    if (!ready(fd, POLLIN)) return false;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    data.append(buf, static_cast<std::size_t>(n));
  }
  return false;
}

}  // namespace

void Gate::open() {
  {
    std::lock_guard lock(mutex_);
    opened_ = true;
  }
  opened_cv_.notify_all();
}

bool Gate::wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return opened_cv_.wait_for(lock, timeout, [this] { return opened_; });
}

ScriptedOrigin::ScriptedOrigin(std::vector<Step> script, std::chrono::milliseconds hold_limit)
    : script_(std::move(script)), hold_limit_(hold_limit) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(listen_fd_, 16) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("scripted origin: cannot listen on 127.0.0.1");
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

ScriptedOrigin::~ScriptedOrigin() {
  stopping_ = true;
  gate_.open();  // a connection still holding finishes its script
  acceptor_.join();
  ::close(listen_fd_);
  std::lock_guard lock(threads_mutex_);
  for (auto& t : threads_) t.join();
}

void ScriptedOrigin::accept_loop() {
  while (!stopping_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) != 1) continue;  // wakes every 50 ms to see stopping_
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::lock_guard lock(threads_mutex_);
    threads_.emplace_back([this, fd] { serve(fd); });
  }
}

void ScriptedOrigin::set_script(std::vector<Step> script) {
  std::lock_guard lock(script_mutex_);
  script_ = std::move(script);
}

void ScriptedOrigin::serve(int fd) {
  if (read_request(fd)) {
    std::vector<Step> script;
    {
      std::lock_guard lock(script_mutex_);
      script = script_;
    }
    ++requests_;
    for (const auto& step : script) {
      if (const auto* send = std::get_if<Send>(&step)) {
        if (!send_all(fd, send->bytes)) break;
      } else {
        gate_.wait(hold_limit_);
      }
    }
  }
  ::close(fd);
}

std::string response_head(const std::vector<std::string>& fields) {
  std::string head = "HTTP/1.1 200 OK\r\n";
  for (const auto& f : fields) head += f + "\r\n";
  return head + "\r\n";
}

std::string chunk(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

}  // namespace sumcache::testing
