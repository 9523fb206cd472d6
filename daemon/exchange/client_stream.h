#pragma once
// A client connection's stream: plain TCP, or TLS on a TLS proxy listener
// (docs/tls.md) and on the peer object listener (docs/peers.md, "TLS for
// object requests"). It offers
// what the session and its writers use (a Beast AsyncStream with a deadline),
// so none of them needs to know which it is. The deadline lives on the TCP
// layer in both cases (net/tls_stream.h).

#include <chrono>
#include <variant>

#include "daemon/net/asio.h"
#include "daemon/net/tls_stream.h"

namespace sumcache::daemon {

class ClientStream {
 public:
  using Plain = beast::tcp_stream;
  using Tls = TlsStream;
  using executor_type = Plain::executor_type;

  explicit ClientStream(tcp::socket socket)
      : stream_(std::in_place_type<Plain>, std::move(socket)) {}
  explicit ClientStream(Tls tls) : stream_(std::move(tls)) {}

  executor_type get_executor() { return tcp_layer().get_executor(); }
  bool is_tls() const { return std::holds_alternative<Tls>(stream_); }
  Tls* tls() { return std::get_if<Tls>(&stream_); }

  beast::tcp_stream& tcp_layer() {
    return std::visit([](auto& s) -> beast::tcp_stream& { return beast::get_lowest_layer(s); },
                      stream_);
  }
  tcp::socket& socket() { return tcp_layer().socket(); }
  void expires_after(std::chrono::steady_clock::duration d) { tcp_layer().expires_after(d); }
  void expires_never() { tcp_layer().expires_never(); }
  void cancel() { tcp_layer().cancel(); }

  // On TLS, the end of the connection is TLS's close_notify (RFC 8446 §6.1):
  // without it a client cannot tell the end from a truncation (OpenSSL says
  // "unexpected eof"). The shutdown then waits for the client's own
  // close_notify or its close, bounded by `wait`. False on plain TCP: nothing sent.
  awaitable<bool> close_tls(std::chrono::steady_clock::duration wait) {
    Tls* stream = tls();
    if (stream == nullptr) co_return false;
    expires_after(wait);
    co_await stream->async_shutdown(use_nothrow);
    co_return true;
  }

  template <class MutableBufferSequence, class Token>
  auto async_read_some(const MutableBufferSequence& buffers, Token&& token) {
    return asio::async_initiate<Token, void(error_code, std::size_t)>(
        [this](auto handler, const MutableBufferSequence& b) {
          std::visit([&](auto& s) { s.async_read_some(b, std::move(handler)); }, stream_);
        },
        token, buffers);
  }

  template <class ConstBufferSequence, class Token>
  auto async_write_some(const ConstBufferSequence& buffers, Token&& token) {
    return asio::async_initiate<Token, void(error_code, std::size_t)>(
        [this](auto handler, const ConstBufferSequence& b) {
          std::visit([&](auto& s) { s.async_write_some(b, std::move(handler)); }, stream_);
        },
        token, buffers);
  }

 private:
  std::variant<Plain, Tls> stream_;
};

}  // namespace sumcache::daemon
