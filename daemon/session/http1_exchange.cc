#include "daemon/session/http1_exchange.h"

#include <array>
#include <charconv>

namespace sumcache::daemon {
namespace {

// A body piece as it goes on the wire: in chunked framing, its size line and
// CRLF around it, and the last chunk after the final one (RFC 9112 §7.1).
class BodyFrame {
 public:
  BodyFrame(asio::const_buffer body, bool chunked, bool last) : body_(body) {
    if (!chunked) return;
    if (body.size() > 0) {
      const auto end = std::to_chars(size_line_.data(), size_line_.data() + size_line_.size() - 2,
                                     body.size(), 16)
                           .ptr;
      end[0] = '\r';
      end[1] = '\n';
      size_len_ = static_cast<std::size_t>(end + 2 - size_line_.data());
      after_ = "\r\n";
    }
    if (last) last_ = "0\r\n\r\n";
  }
  std::array<asio::const_buffer, 4> buffers() const {
    return {asio::buffer(size_line_.data(), size_len_), body_, asio::buffer(after_),
            asio::buffer(last_)};
  }

 private:
  asio::const_buffer body_;
  std::array<char, 20> size_line_{};
  std::size_t size_len_ = 0;
  std::string_view after_;
  std::string_view last_;
};

bool is_success(std::string_view head) {
  return head.size() >= 12 && head.substr(0, 5) == "HTTP/" && head[9] == '2';
}

}  // namespace

std::optional<std::uint64_t> Http1Exchange::body_length() const {
  const auto length = parser_.content_length();
  return length ? std::optional<std::uint64_t>(*length) : std::nullopt;
}

template <std::size_t N>
awaitable<Written> Http1Exchange::send(const std::array<asio::const_buffer, N>& buffers) {
  connection_.stream.expires_after(write_timeout);
  auto [ec, n] =
      co_await asio::async_write(connection_.stream, buffers, transfer_all_at_once, use_nothrow);
  bytes_out += n;
  if (ec) keep_alive = false;
  co_return Written{ec, n};
}

awaitable<Written> Http1Exchange::read_body(asio::mutable_buffer into,
                                            std::chrono::milliseconds timeout) {
  if (tunnel_) {
    if (connection_.buffer.size() > 0) {
      // Bytes the client sent after the CONNECT head go first.
      const std::size_t n = asio::buffer_copy(into, connection_.buffer.data());
      connection_.buffer.consume(n);
      co_return Written{error_code{}, n};
    }
    connection_.stream.expires_after(timeout);
    auto [ec, n] = co_await connection_.stream.async_read_some(into, use_nothrow);
    if (ec == asio::error::eof) {
      tunnel_ended_ = true;
      ec = {};
    }
    co_return Written{ec, n};
  }
  if (parser_.is_done()) co_return Written{error_code{}, 0};
  auto& body = parser_.get().body();
  body.data = into.data();
  body.size = into.size();
  connection_.stream.expires_after(timeout);
  auto [ec, n] = co_await beast::http::async_read(connection_.stream, connection_.buffer, parser_,
                                                  use_nothrow);
  if (ec == beast::http::error::need_buffer) ec = {};
  co_return Written{ec, into.size() - body.size};
}

awaitable<Written> Http1Exchange::write_response(std::string_view head, std::string_view tail,
                                                 asio::const_buffer body, ResponseBody framing) {
  chunked_ = framing.chunked;
  tunnel_ = request().method() == beast::http::verb::connect && is_success(head);
  const BodyFrame frame(body, chunked_, !framing.more);
  const auto b = frame.buffers();
  co_return co_await send(std::array<asio::const_buffer, 6>{asio::buffer(head), asio::buffer(tail),
                                                            b[0], b[1], b[2], b[3]});
}

awaitable<Written> Http1Exchange::write_body(asio::const_buffer body, bool last) {
  const BodyFrame frame(body, chunked_, last);
  Written written{};
  if (body.size() > 0 || (last && chunked_)) written = co_await send(frame.buffers());
  if (tunnel_ && last) {
    // The origin's side ended: the client sees its end too, and may still send.
    error_code ignored;
    connection_.stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }
  co_return written;
}

awaitable<Written> Http1Exchange::write_interim(std::string_view head) {
  co_return co_await send(std::array<asio::const_buffer, 1>{asio::buffer(head)});
}

}  // namespace sumcache::daemon
