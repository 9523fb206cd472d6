// The harness's ceiling for a cache hit: one thread, epoll, and per path a
// response built once at startup. It does what any proxy's hit must do at
// least (read a request, find its response, write it) and nothing else, so a
// proxy's throughput over this server's, in the same run, is how far its hit
// is from free. Bodies of 64 KiB and more go out with sendfile() from the file.
//
//   ceiling_server PORT DIR   serves every regular file under DIR/s and DIR/m
//                             as /s/NAME and /m/NAME, else 404.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

constexpr std::size_t kSendfileMin = 64 * 1024;

struct Response {
  std::string head;
  std::string body;  // empty when sent from fd
  int fd = -1;
  std::size_t size = 0;
};

struct Connection {
  std::string in;
  const Response* out = nullptr;
  std::size_t sent = 0;  // bytes of head + body written so far
};

std::unordered_map<std::string, Response> load(const std::filesystem::path& dir) {
  std::unordered_map<std::string, Response> responses;
  for (const char* sub : {"s", "m"}) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir / sub, ec)) {
      if (!entry.is_regular_file()) continue;
      Response r;
      r.size = entry.file_size();
      r.head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
               std::to_string(r.size) + "\r\nCache-Control: max-age=3600\r\n\r\n";
      if (r.size >= kSendfileMin) {
        r.fd = ::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC);
        if (r.fd < 0) continue;
      } else {
        std::ifstream in(entry.path(), std::ios::binary);
        r.body.assign(std::istreambuf_iterator<char>(in), {});
      }
      responses.emplace("/" + std::string(sub) + "/" + entry.path().filename().string(),
                        std::move(r));
    }
  }
  return responses;
}

const Response& not_found() {
  static const Response r{"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", "", -1, 0};
  return r;
}

// Writes what is pending; false when the connection must close.
bool flush(int fd, Connection& c) {
  const Response& r = *c.out;
  while (c.sent < r.head.size() + r.size) {
    ssize_t n;
    if (c.sent < r.head.size() || r.fd < 0) {
      const std::size_t body_done = c.sent > r.head.size() ? c.sent - r.head.size() : 0;
      const std::size_t head_done = c.sent - body_done;
      iovec iov[2] = {{const_cast<char*>(r.head.data() + head_done), r.head.size() - head_done},
                      {const_cast<char*>(r.body.data() + body_done), r.body.size() - body_done}};
      msghdr message{};
      message.msg_iov = iov;
      message.msg_iovlen = r.fd < 0 ? 2 : 1;
      // MSG_MORE keeps a sendfile()d body's head in the same segment as its start.
      n = ::sendmsg(fd, &message, MSG_NOSIGNAL | (r.fd >= 0 ? MSG_MORE : 0));
    } else {
      off_t offset = static_cast<off_t>(c.sent - r.head.size());
      n = ::sendfile(fd, r.fd, &offset, r.size - static_cast<std::size_t>(offset));
    }
    if (n < 0) return errno == EAGAIN;
    c.sent += static_cast<std::size_t>(n);
  }
  c.out = nullptr;
  c.sent = 0;
  return true;
}

// Answers every complete request in the buffer, in order, while writes keep up.
bool serve(int fd, Connection& c, const std::unordered_map<std::string, Response>& responses) {
  while (c.out == nullptr) {
    const auto end = c.in.find("\r\n\r\n");
    if (end == std::string::npos) return c.in.size() < 16384;
    const std::string_view line(c.in.data(), c.in.find("\r\n"));
    const auto sp1 = line.find(' ');
    const auto sp2 = line.find(' ', sp1 + 1);
    if (sp1 == std::string_view::npos || sp2 == std::string_view::npos) return false;
    std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    if (const auto scheme = target.find("://"); scheme != std::string_view::npos) {
      const auto path = target.find('/', scheme + 3);
      target = path == std::string_view::npos ? "/" : target.substr(path);
    }
    const auto found = responses.find(std::string(target));
    c.out = found == responses.end() ? &not_found() : &found->second;
    c.in.erase(0, end + 4);
    if (!flush(fd, c)) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PORT DIR\n", argv[0]);
    return 2;
  }
  const auto responses = load(argv[2]);
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(std::atoi(argv[1])));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener, 1024) != 0) {
    std::perror("listen");
    return 1;
  }
  const int ep = ::epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{EPOLLIN, {.fd = listener}};
  ::epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  std::unordered_map<int, Connection> connections;
  std::vector<epoll_event> events(256);
  char buffer[16384];
  for (;;) {
    const int n = ::epoll_wait(ep, events.data(), static_cast<int>(events.size()), -1);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listener) {
        for (int c; (c = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
          ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          epoll_event cev{EPOLLIN | EPOLLOUT | EPOLLET, {.fd = c}};
          ::epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
          connections.emplace(c, Connection{});
        }
        continue;
      }
      Connection& c = connections[fd];
      bool ok = c.out == nullptr || flush(fd, c);
      while (ok) {
        const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
        if (got > 0) {
          c.in.append(buffer, static_cast<std::size_t>(got));
          ok = serve(fd, c, responses);
        } else {
          ok = got < 0 && errno == EAGAIN && serve(fd, c, responses);
          break;
        }
      }
      if (!ok) {
        ::close(fd);
        connections.erase(fd);
      }
    }
  }
}
