#include "tests/daemon/integration/recording_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>

namespace sumcache::testing {

namespace {

// Every blocking step wakes this often to see whether the relay stopped.
constexpr int kPollMs = 50;

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

}  // namespace

bool RecordingRelay::start() {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener_ < 0) return false;
  sockaddr_in a = loopback(0);
  socklen_t len = sizeof a;
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(listener_, 16) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    return false;
  }
  port_ = ntohs(a.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
  return true;
}

void RecordingRelay::stop() {
  if (stopped_.exchange(true)) return;
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> connections;
  {
    std::lock_guard lock(mutex_);
    connections.swap(connections_);
  }
  for (auto& t : connections) t.join();
  if (listener_ >= 0) ::close(listener_);
}

std::vector<std::string> RecordingRelay::posts_to(std::string_view path) const {
  const std::string line = "POST " + std::string(path) + " ";
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& r : recorded_) {
    if (r.starts_with(line)) out.push_back(r);
  }
  return out;
}

void RecordingRelay::accept_loop() {
  while (!stopped_) {
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, kPollMs) <= 0) continue;
    const int client = ::accept(listener_, nullptr, nullptr);
    if (client < 0) continue;
    std::lock_guard lock(mutex_);
    connections_.emplace_back([this, client] { relay(client); });
  }
}

void RecordingRelay::relay(int client) {
  const int server = ::socket(AF_INET, SOCK_STREAM, 0);
  const sockaddr_in to = loopback(target_);
  if (server < 0 || ::connect(server, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    if (server >= 0) ::close(server);
    ::close(client);
    return;
  }
  std::string sent;
  std::array<char, 16384> buf{};
  std::array<pollfd, 2> fds{pollfd{client, POLLIN, 0}, pollfd{server, POLLIN, 0}};
  bool open = true;
  while (open && !stopped_) {
    if (::poll(fds.data(), fds.size(), kPollMs) <= 0) continue;
    for (std::size_t i = 0; i < fds.size() && open; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf.data(), buf.size());
      if (n <= 0) {
        open = false;
        break;
      }
      if (i == 0) sent.append(buf.data(), static_cast<std::size_t>(n));
      const int out = i == 0 ? server : client;
      if (::send(out, buf.data(), static_cast<std::size_t>(n), MSG_NOSIGNAL) != n) open = false;
    }
  }
  ::close(server);
  ::close(client);
  std::lock_guard lock(mutex_);
  recorded_.push_back(std::move(sent));
}

}  // namespace sumcache::testing
