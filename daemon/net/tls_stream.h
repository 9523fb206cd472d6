#pragma once
// The server side of a TLS connection, over a beast::tcp_stream (so the
// deadline lives on the TCP layer, as with Beast's ssl_stream). OpenSSL reads
// and writes through a BIO of ours over two buffers: ciphertext read from the
// socket, and ciphertext waiting to be sent. A write seals up to
// kMaxWritePlain bytes of the caller's buffers into records (small buffers
// share one record) and sends them all in one socket write. Asio's ssl::stream
// instead sends each record with a write of its own after two more copies
// through a BIO pair, which cost sumcached more than nginx per byte of an
// HTTPS hit (docs/performance.md, "HTTPS hits beside nginx").
//
// One read and one write may be in flight at once (HTTP/2 reads while it
// writes); bytes OpenSSL writes during a read (an alert, a KeyUpdate answer)
// go out with the next write.

#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <memory>
#include <string>

#include "daemon/net/asio.h"

namespace sumcache::daemon {

class TlsStream {
 public:
  using executor_type = beast::tcp_stream::executor_type;
  using next_layer_type = beast::tcp_stream;
  // Plaintext sealed per write_some: enough to fill a socket write, bounded
  // so a large body is not held twice (plain and sealed) at once.
  static constexpr std::size_t kMaxWritePlain = 64 * 1024;

  TlsStream(tcp::socket socket, asio::ssl::context& context);
  TlsStream(TlsStream&&) noexcept = default;
  TlsStream& operator=(TlsStream&&) noexcept = default;
  ~TlsStream() = default;

  executor_type get_executor() { return state_->socket.get_executor(); }
  beast::tcp_stream& next_layer() { return state_->socket; }
  SSL* native_handle() { return state_->ssl.get(); }

  // The server handshake; then whatever OpenSSL wrote (its last flight, TLS
  // 1.3 session tickets) is sent before it completes.
  template <class Token>
  auto async_handshake(Token&& token) {
    return asio::async_compose<Token, void(error_code)>(HandshakeOp{state_.get()}, token,
                                                        state_->socket);
  }

  // close_notify, then the client's close_notify awaited (data before it is
  // dropped) until the TCP deadline.
  template <class Token>
  auto async_shutdown(Token&& token) {
    return asio::async_compose<Token, void(error_code)>(ShutdownOp{state_.get()}, token,
                                                        state_->socket);
  }

  template <class MutableBufferSequence, class Token>
  auto async_read_some(const MutableBufferSequence& buffers, Token&& token) {
    return asio::async_compose<Token, void(error_code, std::size_t)>(
        ReadOp{state_.get(), first_buffer<asio::mutable_buffer>(buffers)}, token, state_->socket);
  }

  template <class ConstBufferSequence, class Token>
  auto async_write_some(const ConstBufferSequence& buffers, Token&& token) {
    return asio::async_compose<Token, void(error_code, std::size_t)>(
        WriteOp<ConstBufferSequence>{state_.get(), buffers}, token, state_->socket);
  }

 private:
  struct SslFree {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
  };

  // What the BIO and the operations share; on the heap, so the stream can move.
  struct State {
    State(tcp::socket tcp_socket, asio::ssl::context& context);
    beast::tcp_stream socket;
    std::unique_ptr<SSL, SslFree> ssl;
    std::unique_ptr<char[]> in;  // ciphertext read: [in_begin, in_end) not yet taken by OpenSSL
    std::size_t in_begin = 0;
    std::size_t in_end = 0;
    bool in_eof = false;   // the client closed its side
    std::string out;       // ciphertext OpenSSL wrote, not yet being sent
    std::string sending;   // ciphertext a socket write has in flight
    std::string staging;   // small plaintext pieces gathered into one record

    // Seals up to kMaxWritePlain bytes of `buffers` into `out`; how many.
    template <class ConstBufferSequence>
    std::size_t seal(const ConstBufferSequence& buffers, error_code& ec);
    void seal_piece(const char* data, std::size_t size, std::size_t& taken, error_code& ec);
    void seal_now(const char* data, std::size_t size, error_code& ec);
    // Room in `out` for `plain` bytes sealed, so that it grows once.
    void reserve_output(std::size_t plain);
    // A socket write ended: a large batch's buffer is not kept by an idle connection.
    void sent();
    // Room for the next socket read; empty when the buffer is full of ciphertext OpenSSL did not take.
    asio::mutable_buffer read_room();
    // A socket read into read_room() ended: its bytes join those OpenSSL reads,
    // the client's end of stream is noted. False for any other error.
    bool took(const error_code& ec, std::size_t got);
    // Moves `out` to `sending`: the bytes the next socket write carries.
    asio::const_buffer take_output();
    // The error of an OpenSSL call that failed with `result`.
    error_code failure(int result);
  };

  template <class Buffer, class Sequence>
  static Buffer first_buffer(const Sequence& buffers) {
    for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers);
         ++it) {
      const Buffer b(*it);
      if (b.size() > 0) return b;
    }
    return Buffer();
  }

  // Completes with `args`, after a post when the operation has not yet waited
  // on anything (a handler must not run inside its initiating call).
  template <class Self, class... Args>
  static void finish(Self& self, bool waited, Args... args) {
    if (waited) {
      self.complete(args...);
      return;
    }
    auto executor = asio::get_associated_executor(self);
    asio::post(executor, [self = std::move(self), args...]() mutable { self.complete(args...); });
  }

  struct ReadOp {
    ReadOp(State* state, asio::mutable_buffer buffer) : s(state), into(buffer) {}
    State* s;
    asio::mutable_buffer into;
    bool waited = false;
    template <class Self>
    void operator()(Self& self, error_code ec = {}, std::size_t got = 0);
  };

  template <class ConstBufferSequence>
  struct WriteOp {
    WriteOp(State* state, const ConstBufferSequence& b) : s(state), buffers(b) {}
    State* s;
    ConstBufferSequence buffers;
    std::size_t taken = 0;
    bool waited = false;
    template <class Self>
    void operator()(Self& self, error_code ec = {}, std::size_t = 0);
  };

  struct HandshakeOp {
    explicit HandshakeOp(State* state) : s(state) {}
    State* s;
    enum class Step { start, sent, read } step = Step::start;
    error_code failed;  // the handshake's error, sent with its alert
    template <class Self>
    void operator()(Self& self, error_code ec = {}, std::size_t got = 0);
  };

  struct ShutdownOp {
    explicit ShutdownOp(State* state) : s(state) {}
    State* s;
    enum class Step { start, sent, read } step = Step::start;
    template <class Self>
    void operator()(Self& self, error_code ec = {}, std::size_t got = 0);
  };

  std::unique_ptr<State> state_;
};

template <class ConstBufferSequence>
std::size_t TlsStream::State::seal(const ConstBufferSequence& buffers, error_code& ec) {
  reserve_output(std::min(asio::buffer_size(buffers), kMaxWritePlain));
  std::size_t taken = 0;
  for (auto it = asio::buffer_sequence_begin(buffers);
       it != asio::buffer_sequence_end(buffers) && taken < kMaxWritePlain && !ec; ++it) {
    const asio::const_buffer b(*it);
    seal_piece(static_cast<const char*>(b.data()), std::min(b.size(), kMaxWritePlain - taken),
               taken, ec);
  }
  if (!staging.empty() && !ec) seal_now(staging.data(), staging.size(), ec);
  staging.clear();
  return ec ? 0 : taken;
}

template <class Self>
void TlsStream::ReadOp::operator()(Self& self, error_code ec, std::size_t got) {
  if (waited && !s->took(ec, got)) return self.complete(ec, 0);
  if (into.size() == 0) return finish(self, waited, error_code{}, std::size_t{0});
  ERR_clear_error();
  std::size_t n = 0;
  const int result = SSL_read_ex(s->ssl.get(), into.data(), into.size(), &n);
  if (result == 1) return finish(self, waited, error_code{}, n);
  if (SSL_get_error(s->ssl.get(), result) == SSL_ERROR_WANT_READ && !s->in_eof) {
    const auto room = s->read_room();
    if (room.size() == 0) {
      return finish(self, waited, error_code(asio::error::message_size), std::size_t{0});
    }
    waited = true;
    return s->socket.async_read_some(room, std::move(self));
  }
  finish(self, waited, s->failure(result), std::size_t{0});
}

template <class ConstBufferSequence>
template <class Self>
void TlsStream::WriteOp<ConstBufferSequence>::operator()(Self& self, error_code ec, std::size_t) {
  if (waited) {
    s->sent();
    return self.complete(ec, ec ? 0 : taken);
  }
  taken = s->seal(buffers, ec);
  if (ec || s->out.empty()) return finish(self, false, ec, std::size_t{0});
  waited = true;
  asio::async_write(s->socket, s->take_output(), std::move(self));
}

template <class Self>
void TlsStream::HandshakeOp::operator()(Self& self, error_code ec, std::size_t got) {
  switch (step) {
    case Step::start:
      break;
    case Step::sent:
      s->sent();
      if (failed || ec) return self.complete(failed ? failed : ec);
      break;
    case Step::read:
      if (!s->took(ec, got)) return self.complete(ec);
      break;
  }
  const bool waited = step != Step::start;
  ERR_clear_error();
  const int result = SSL_do_handshake(s->ssl.get());
  const bool wants_read =
      result != 1 && SSL_get_error(s->ssl.get(), result) == SSL_ERROR_WANT_READ && !s->in_eof;
  if (result != 1 && !wants_read) failed = s->failure(result);
  if (!s->out.empty()) {
    // This flight first (or the alert that says why the handshake failed).
    // Back in Step::sent, the handshake goes on (or ends with `failed`).
    step = Step::sent;
    return asio::async_write(s->socket, s->take_output(), std::move(self));
  }
  if (result == 1 || failed) return finish(self, waited, failed);
  const auto room = s->read_room();
  if (room.size() == 0) return finish(self, waited, error_code(asio::error::message_size));
  step = Step::read;
  s->socket.async_read_some(room, std::move(self));
}

template <class Self>
void TlsStream::ShutdownOp::operator()(Self& self, error_code ec, std::size_t got) {
  switch (step) {
    case Step::start: {
      ERR_clear_error();
      SSL_shutdown(s->ssl.get());
      if (s->out.empty()) return finish(self, false, error_code(asio::error::not_connected));
      step = Step::sent;
      return asio::async_write(s->socket, s->take_output(), std::move(self));
    }
    case Step::sent:
      s->sent();
      if (ec) return self.complete(ec);
      break;
    case Step::read:
      if (!s->took(ec, got)) return self.complete(ec);
      break;
  }
  // Until the client's close_notify: what it still sends is read and dropped.
  char sink[4096];
  for (;;) {
    ERR_clear_error();
    std::size_t n = 0;
    const int result = SSL_read_ex(s->ssl.get(), sink, sizeof sink, &n);
    if (result == 1) continue;
    const int why = SSL_get_error(s->ssl.get(), result);
    if (why == SSL_ERROR_ZERO_RETURN) return self.complete(error_code{});
    if (why != SSL_ERROR_WANT_READ || s->in_eof) return self.complete(s->failure(result));
    const auto room = s->read_room();
    if (room.size() == 0) return self.complete(error_code(asio::error::message_size));
    step = Step::read;
    return s->socket.async_read_some(room, std::move(self));
  }
}

}  // namespace sumcache::daemon
