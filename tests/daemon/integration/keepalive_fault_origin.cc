#include "tests/daemon/integration/keepalive_fault_origin.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace sumcache::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kMaxIdle{10000};     // an idle connection is closed after this anyway
constexpr milliseconds kReadTimeout{5000};  // to read the rest of a request once it started
constexpr std::size_t kMaxRequestBytes = 1024 * 1024;
// Long enough for the proxy to have read the answer and pooled the connection.
constexpr milliseconds kStrayDelay{100};

const std::string kFakeResponse = std::string(
                                      "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\n"
                                      "Content-Length: 6\r\n\r\n") +
                                  kPoison;

// Appends what arrives before `deadline`; false on timeout, close or error.
bool read_more(int fd, std::string& in, Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
  char buf[16 * 1024];
  const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  if (n <= 0) return false;
  in.append(buf, static_cast<std::size_t>(n));
  return in.size() <= kMaxRequestBytes;
}

bool send_all(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::size_t content_length(const std::string& head) {
  std::string lower = head;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos) return 0;
  return std::stoul(lower.substr(at + 17));
}

std::string response(const SeenRequest& r) {
  if (r.path.starts_with("/extra204/")) return "HTTP/1.1 204 No Content\r\n\r\n" + kFakeResponse;
  const std::string body = "real:" + r.method + " " + r.path + " " + std::to_string(r.body_bytes);
  const bool cacheable = r.method == "GET" && !r.path.starts_with("/stray/");
  std::string out =
      "HTTP/1.1 200 OK\r\nCache-Control: " + std::string(cacheable ? "max-age=600" : "no-store") +
      "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  if (r.path.starts_with("/extra/")) out += kFakeResponse;
  return out;
}

}  // namespace

KeepAliveFaultOrigin::KeepAliveFaultOrigin(KeepAliveFaultOriginOptions options) : options_(options) {}

KeepAliveFaultOrigin::~KeepAliveFaultOrigin() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  changed_.notify_all();
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  for (auto& t : sessions_) t.join();
}

bool KeepAliveFaultOrigin::start() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 64) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return false;
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
  return true;
}

std::string KeepAliveFaultOrigin::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

void KeepAliveFaultOrigin::accept_loop() {
  for (int connection = 1;; ++connection) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    std::lock_guard lock(mutex_);
    if (fd < 0 || stopping_) {
      if (fd >= 0) ::close(fd);
      return;
    }
    open_fds_.push_back(fd);
    sessions_.emplace_back([this, fd, connection] { serve(fd, connection); });
  }
}

void KeepAliveFaultOrigin::serve(int fd, int connection) {
  std::string in;
  for (int requests = 0;; ++requests) {
    const milliseconds idle =
        requests > 0 && options_.idle_close.count() > 0 ? options_.idle_close : kMaxIdle;
    const auto idle_deadline = Clock::now() + idle;
    if (in.empty() && !read_more(fd, in, idle_deadline)) break;  // idle close (or the peer's)
    const auto deadline = Clock::now() + kReadTimeout;
    std::size_t end = in.find("\r\n\r\n");
    while (end == std::string::npos && read_more(fd, in, deadline)) end = in.find("\r\n\r\n");
    if (end == std::string::npos) break;
    const std::string head = in.substr(0, end + 2);
    SeenRequest r;
    const auto sp1 = head.find(' ');
    const auto sp2 = head.find(' ', sp1 + 1);
    if (sp1 == std::string::npos || sp2 == std::string::npos) break;
    r.method = head.substr(0, sp1);
    r.path = head.substr(sp1 + 1, sp2 - sp1 - 1);
    r.connection = connection;
    r.body_bytes = content_length(head);
    while (in.size() < end + 4 + r.body_bytes && read_more(fd, in, deadline)) {
    }
    if (in.size() < end + 4 + r.body_bytes) break;
    in.erase(0, end + 4 + r.body_bytes);
    if (options_.drop_after_first && requests > 0) {
      record(r);  // unanswered: the connection closes under the request
      break;
    }
    r.answered = send_all(fd, response(r));
    record(r);
    if (r.path.starts_with("/stray/")) {
      std::unique_lock lock(mutex_);
      if (changed_.wait_for(lock, kStrayDelay, [this] { return stopping_; })) break;
      if (send_all(fd, kFakeResponse)) ++stray_sent_;
      lock.unlock();
      changed_.notify_all();
    }
  }
  std::lock_guard lock(mutex_);
  open_fds_.erase(std::find(open_fds_.begin(), open_fds_.end(), fd));
  ::close(fd);
}

void KeepAliveFaultOrigin::record(SeenRequest request) {
  {
    std::lock_guard lock(mutex_);
    seen_.push_back(std::move(request));
  }
  changed_.notify_all();
}

std::vector<SeenRequest> KeepAliveFaultOrigin::seen() const {
  std::lock_guard lock(mutex_);
  return seen_;
}

int KeepAliveFaultOrigin::stray_sent() const {
  std::lock_guard lock(mutex_);
  return stray_sent_;
}

bool KeepAliveFaultOrigin::wait_until(
    const std::function<bool(const std::vector<SeenRequest>&, int)>& ready,
    milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return ready(seen_, stray_sent_); });
}

}  // namespace sumcache::testing
