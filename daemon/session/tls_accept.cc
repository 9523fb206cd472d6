#include "daemon/session/tls_accept.h"

#include <array>

namespace sumcache::daemon {

using namespace asio::experimental::awaitable_operators;

namespace {

constexpr unsigned char kTlsHandshakeRecord = 0x16;

// nginx answers the same mistake with 400 too ("The plain HTTP request was sent to HTTPS port").
constexpr std::string_view kPlainBody = "400 Bad Request: this port speaks TLS (use https://)\n";

void note(ProxyShared& shared, const TlsListener& listener, const std::string& address,
          const std::string& what) {
  if (!shared.log.enabled(LogLevel::warn)) return;
  const auto held_back = shared.tls_log.admit(LogLimiter::Clock::now());
  if (!held_back) return;
  std::string line = "TLS listener " + listener.name() + ": " + address + ": " + what;
  if (*held_back > 0) line += " (" + std::to_string(*held_back) + " more since the last line)";
  shared.log.warn(line);
}

// The 400, then the request is read and dropped briefly: closing with it
// unread would send RST, which can destroy the answer before it is read.
awaitable<void> answer_plain_http(tcp::socket& socket) {
  const std::string answer =
      "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n"
      "Content-Length: " +
      std::to_string(kPlainBody.size()) + "\r\n\r\n" + std::string(kPlainBody);
  beast::tcp_stream stream(std::move(socket));
  stream.expires_after(std::chrono::seconds(1));
  auto [ec, n] = co_await asio::async_write(stream, asio::buffer(answer), use_nothrow);
  if (ec) co_return;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  std::array<char, 4096> sink;
  for (std::size_t dropped = 0; !ec && dropped < 64 * 1024;) {
    auto [read_ec, got] = co_await stream.async_read_some(asio::buffer(sink), use_nothrow);
    ec = read_ec;
    dropped += got;
  }
}

}  // namespace

awaitable<std::optional<TlsAccepted>> accept_tls(ProxyShared& shared, TlsListener& listener,
                                                 tcp::socket socket) {
  error_code ec;
  const auto remote = socket.remote_endpoint(ec);
  if (ec) co_return std::nullopt;
  const std::string address = remote.address().to_string();
  // Before the handshake: a flight written in two parts would otherwise wait
  // for the client's delayed ACK (Nagle), as nginx also avoids.
  socket.set_option(tcp::no_delay(true), ec);
  const auto timeout = shared.settings.get()->config.limits.client_request_timeout_ms;
  const auto deadline = std::chrono::steady_clock::now() + timeout;

  unsigned char first = 0;
  asio::steady_timer timer(socket.get_executor(), deadline);
  auto peeked = co_await (
      socket.async_receive(asio::buffer(&first, 1), tcp::socket::message_peek, use_nothrow) ||
      timer.async_wait(use_nothrow));
  if (peeked.index() == 1) {
    listener.count(HandshakeResult::timeout);
    co_return std::nullopt;
  }
  const auto [peek_ec, n] = std::get<0>(peeked);
  if (peek_ec || n == 0) co_return std::nullopt;  // gone before saying anything
  if (first != kTlsHandshakeRecord) {
    listener.count(HandshakeResult::plain_http);
    note(shared, listener, address, "plain HTTP sent to a TLS port: answered 400");
    co_await answer_plain_http(socket);
    co_return std::nullopt;
  }

  std::shared_ptr<const ServerTls> tls = listener.current();
  TlsAccepted accepted{ClientStream(ClientStream::Tls(std::move(socket), tls->initial())), tls};
  accepted.stream.tcp_layer().expires_at(deadline);
  auto [handshake_ec] =
      co_await accepted.stream.tls()->async_handshake(use_nothrow);
  if (handshake_ec) {
    const bool timed_out = handshake_ec == beast::error::timeout;
    listener.count(timed_out ? HandshakeResult::timeout : HandshakeResult::failed);
    note(shared, listener, address,
         timed_out ? std::string("TLS handshake timed out")
                   : "TLS handshake failed: " + handshake_ec.message());
    co_return std::nullopt;
  }
  accepted.stream.expires_never();
  listener.count(HandshakeResult::ok);
  co_return accepted;
}

}  // namespace sumcache::daemon
