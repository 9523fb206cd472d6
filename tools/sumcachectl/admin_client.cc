#include "tools/sumcachectl/admin_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

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

using SslCtxPtr = std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)>;
using SslPtr = std::unique_ptr<SSL, decltype(&SSL_free)>;

// The connection's byte stream: the socket itself, or a TLS session over it.
class Channel {
 public:
  explicit Channel(int fd) : fd_(fd) {}

  // Verifies the server's certificate chain against `cacert` (or the system store) and its
  // name against address.verify_name; TLS 1.2 at least, as the daemon accepts.
  std::error_code handshake(const AdminAddress& address, const std::string& cacert,
                            Clock::time_point deadline) {
    ctx_.reset(SSL_CTX_new(TLS_client_method()));
    if (!ctx_ || SSL_CTX_set_min_proto_version(ctx_.get(), TLS1_2_VERSION) != 1) {
      return make_error_code(CtlErrc::tls_failed);
    }
    const int loaded = cacert.empty()
                           ? SSL_CTX_set_default_verify_paths(ctx_.get())
                           : SSL_CTX_load_verify_locations(ctx_.get(), cacert.c_str(), nullptr);
    if (loaded != 1) return make_error_code(CtlErrc::cacert_unusable);
    SSL_CTX_set_verify(ctx_.get(), SSL_VERIFY_PEER, nullptr);
    // The response says its own length, or ends at the close: parse_http_reply tells a
    // truncated one either way, so a close without close_notify is an end like TCP's.
    SSL_CTX_set_options(ctx_.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
    ssl_.reset(SSL_new(ctx_.get()));
    if (!ssl_ || SSL_set_fd(ssl_.get(), fd_) != 1) {
      return make_error_code(CtlErrc::tls_failed);
    }
    const std::string& name = address.verify_name;
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_.get());
    unsigned char ip[16];
    const bool is_ip =
        ::inet_pton(AF_INET, name.c_str(), ip) == 1 || ::inet_pton(AF_INET6, name.c_str(), ip) == 1;
    // RFC 6066 §3: SNI carries host names only, never an IP literal.
    const bool named = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str()) == 1
                             : SSL_set_tlsext_host_name(ssl_.get(), name.c_str()) == 1 &&
                                   SSL_set1_host(ssl_.get(), name.c_str()) == 1;
    if (!named) return make_error_code(CtlErrc::tls_failed);
    auto done = io(deadline, [this] { return SSL_connect(ssl_.get()); });
    if (done && *done > 0) return {};
    switch (SSL_get_verify_result(ssl_.get())) {
      case X509_V_OK:
        // A close in the middle of the handshake reads as a clean end: not a session either.
        return done ? make_error_code(CtlErrc::tls_failed) : done.error();
      case X509_V_ERR_HOSTNAME_MISMATCH:
      case X509_V_ERR_IP_ADDRESS_MISMATCH:
        return make_error_code(CtlErrc::certificate_name_mismatch);
      default:
        return make_error_code(CtlErrc::certificate_untrusted);
    }
  }

  std::error_code send_all(std::string_view data, Clock::time_point deadline) {
    while (!data.empty()) {
      auto sent =
          ssl_ ? io(deadline,
                    [&] {
                      return SSL_write(ssl_.get(), data.data(), static_cast<int>(data.size()));
                    })
               : plain_send(data, deadline);
      if (!sent) return sent.error();
      if (*sent == 0) return std::make_error_code(std::errc::broken_pipe);  // the server closed
      data.remove_prefix(*sent);
    }
    return {};
  }

  // Some bytes into `buffer`; 0 at the end of the stream.
  Result<std::size_t> receive(char* buffer, std::size_t size, Clock::time_point deadline) {
    if (ssl_) {
      return io(deadline, [&] { return SSL_read(ssl_.get(), buffer, static_cast<int>(size)); });
    }
    for (;;) {
      if (auto ec = wait_for(fd_, POLLIN, deadline)) return ec;
      const ssize_t n = ::recv(fd_, buffer, size, 0);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n < 0) return last_error();
      return static_cast<std::size_t>(n);
    }
  }

 private:
  Result<std::size_t> plain_send(std::string_view data, Clock::time_point deadline) {
    for (;;) {
      if (auto ec = wait_for(fd_, POLLOUT, deadline)) return ec;
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN && errno != EINTR) return last_error();
      if (n > 0) return static_cast<std::size_t>(n);
    }
  }

  // Repeats one OpenSSL call, waiting for the socket each time it asks to, until it moves
  // bytes (their count), ends cleanly (0), or fails.
  template <class Call>
  Result<std::size_t> io(Clock::time_point deadline, Call call) {
    for (;;) {
      ERR_clear_error();
      errno = 0;  // SSL_ERROR_SYSCALL with errno 0 is an EOF the ignore option did not cover
      const int n = call();
      if (n > 0) return static_cast<std::size_t>(n);
      switch (SSL_get_error(ssl_.get(), n)) {
        case SSL_ERROR_WANT_READ:
          if (auto ec = wait_for(fd_, POLLIN, deadline)) return ec;
          continue;
        case SSL_ERROR_WANT_WRITE:
          if (auto ec = wait_for(fd_, POLLOUT, deadline)) return ec;
          continue;
        case SSL_ERROR_ZERO_RETURN:
          return std::size_t{0};
        case SSL_ERROR_SYSCALL:
          if (errno != 0) return last_error();
          [[fallthrough]];
        default:
          return make_error_code(CtlErrc::tls_failed);
      }
    }
  }

  int fd_;
  SslCtxPtr ctx_{nullptr, SSL_CTX_free};
  SslPtr ssl_{nullptr, SSL_free};
};

Result<HttpReply> receive_reply(Channel& channel, Clock::time_point deadline) {
  std::string raw;
  char buffer[16384];
  for (;;) {
    auto n = channel.receive(buffer, sizeof buffer, deadline);
    if (!n) return n.error();
    raw.append(buffer, *n);
    auto reply = parse_http_reply(raw, *n == 0);
    if (reply || reply.error() != CtlErrc::incomplete_response || *n == 0) return reply;
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

Result<HttpReply> admin_exchange(const AdminAddress& address, const std::string& cacert,
                                 const AdminRequest& request, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const int family = address.host.find(':') != std::string::npos ? AF_INET6 : AF_INET;
  Socket socket(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (socket.fd() < 0) return last_error();
  if (auto ec = connect_by(socket.fd(), address, deadline)) return ec;
  Channel channel(socket.fd());
  if (address.https) {
    if (auto ec = channel.handshake(address, cacert, deadline)) return ec;
  }
  if (auto ec = channel.send_all(request_text(address, request), deadline)) return ec;
  return receive_reply(channel, deadline);
}

}  // namespace sumcache::tools
