#pragma once
// One connection to an origin (or a peer), plain TCP or TLS, with the
// deadline-carrying stream that every read and write goes through.

#include <openssl/ssl.h>

#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdint>
#include <variant>

#include "daemon/exchange/origin.h"
#include "daemon/net/asio.h"

namespace sumcache::daemon {

class UpstreamConnection {
 public:
  using Plain = beast::tcp_stream;
  using Tls = beast::ssl_stream<beast::tcp_stream>;

  UpstreamConnection(Origin origin, Plain stream)
      : origin_(std::move(origin)), stream_(std::move(stream)) {}
  UpstreamConnection(Origin origin, Tls stream)
      : origin_(std::move(origin)), stream_(std::move(stream)) {}

  const Origin& origin() const { return origin_; }
  beast::tcp_stream& tcp() {
    return std::visit([](auto& s) -> beast::tcp_stream& { return beast::get_lowest_layer(s); },
                      stream_);
  }
  void expires_after(std::chrono::milliseconds d) { tcp().expires_after(d); }
  // Calls f with the concrete stream (Plain& or Tls&); f returns an awaitable.
  template <class F>
  auto visit(F&& f) {
    return std::visit(std::forward<F>(f), stream_);
  }

  // Decrypted or undecrypted TLS bytes already read from the socket and not
  // yet consumed: a readiness check on the socket cannot see them.
  bool tls_bytes_pending() {
    auto* tls = std::get_if<Tls>(&stream_);
    if (tls == nullptr) return false;
    SSL* ssl = tls->native_handle();
    return SSL_has_pending(ssl) == 1 || BIO_ctrl_pending(SSL_get_rbio(ssl)) > 0;
  }

  std::chrono::steady_clock::time_point idle_since{};
  std::uint64_t idle_period = 0;  // the pool's id for this stay in it: a late watch finds no match
  unsigned requests = 0;          // served on this connection, for reuse statistics

 private:
  Origin origin_;
  std::variant<Plain, Tls> stream_;
};

}  // namespace sumcache::daemon
