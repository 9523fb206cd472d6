#include "daemon/session/http2_exchange.h"

#include <charconv>
#include <cstring>

#include "daemon/session/http2_frames.h"

namespace sumcache::daemon {
namespace {

// RFC 7541 §4.1: a field's size in the HPACK table, the measure of decoded
// bytes (so an empty field still costs).
constexpr std::uint64_t kFieldOverhead = 32;

}  // namespace

Http2Exchange::Http2Exchange(Http2Frames& frames, std::int32_t stream_id, const Ip6Bytes& address,
                             const std::string& address_text, std::uint64_t max_header_bytes,
                             std::uint64_t max_body_bytes)
    : ClientExchange(address, address_text),
      frames_(frames),
      id_(stream_id),
      max_header_bytes_(max_header_bytes),
      max_body_bytes_(max_body_bytes),
      signal_(frames.executor()) {
  request_.version(20);
}

bool Http2Exchange::add_field(std::string_view name, std::string_view value) {
  header_bytes_ += name.size() + value.size() + kFieldOverhead;
  if (header_bytes_ > max_header_bytes_) return false;
  if (!name.empty() && name.front() == ':') {
    if (name == ":method") pseudo_.method = value;
    if (name == ":scheme") pseudo_.scheme = value;
    if (name == ":authority") pseudo_.authority = value;
    if (name == ":path") pseudo_.path = value;
    return true;
  }
  // Cookie crumbs become one field again for HTTP/1.1 (RFC 9113 §8.2.3).
  if (name == "cookie") {
    const auto it = request_.find(beast::http::field::cookie);
    if (it != request_.end()) {
      request_.set(beast::http::field::cookie,
                   std::string(it->value()) + "; " + std::string(value));
      return true;
    }
  }
  request_.insert(name, value);
  return true;
}

std::optional<std::string> Http2Exchange::finish_head(bool absolute_form) {
  const auto host = request_.find(beast::http::field::host);
  const auto target = h2_target(
      pseudo_,
      host == request_.end() ? std::nullopt : std::optional<std::string_view>(host->value()),
      absolute_form);
  request_.method_string(pseudo_.method.empty() ? "GET" : pseudo_.method);
  if (const auto* why = std::get_if<std::string>(&target)) {
    request_.target(pseudo_.path.empty() ? "/" : pseudo_.path);
    return *why;
  }
  const auto& t = std::get<H2Target>(target);
  request_.target(t.target);
  if (!t.host.empty()) request_.set(beast::http::field::host, t.host);
  const auto length = request_.find(beast::http::field::content_length);
  if (length != request_.end()) {
    std::uint64_t n = 0;
    const auto v = length->value();
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || ptr != v.data() + v.size()) return std::string("bad content-length");
    if (n > max_body_bytes_) return std::string("content-length past limits.max_body_bytes");
    declared_length_ = n;
  }
  return std::nullopt;
}

bool Http2Exchange::add_body(const std::uint8_t* data, std::size_t size) {
  if (finished_) {
    // Nobody reads it any more: the window opens at once.
    frames_.consume(id_, size);
    return true;
  }
  body_bytes_ += size;
  if (body_bytes_ > max_body_bytes_) return false;
  const auto room = inbound_.prepare(size);
  std::memcpy(room.data(), data, size);
  inbound_.commit(size);
  wake();
  return true;
}

void Http2Exchange::end_body() {
  inbound_ended_ = true;
  wake();
}

void Http2Exchange::closed() {
  closed_ = true;
  wake();
}

awaitable<bool> Http2Exchange::wait(std::chrono::steady_clock::duration timeout) {
  signal_.expires_after(timeout);
  auto [ec] = co_await signal_.async_wait(use_nothrow);
  co_return ec == asio::error::operation_aborted;
}

awaitable<Written> Http2Exchange::read_body(asio::mutable_buffer into,
                                            std::chrono::milliseconds timeout) {
  // The loop only breaks, as in hand_over (GCC 12).
  error_code ec;
  while (inbound_.size() == 0 && !inbound_ended_) {
    if (closed_) {
      ec = asio::error::connection_reset;
      break;
    }
    const bool woken = co_await wait(timeout);
    if (!woken) {
      ec = beast::error::timeout;
      break;
    }
  }
  if (ec) co_return Written{ec, 0};
  const std::size_t n = asio::buffer_copy(into, inbound_.data());
  inbound_.consume(n);
  if (n > 0) frames_.consume(id_, n);
  co_return Written{error_code{}, n};
}

ssize_t Http2Exchange::provide(std::size_t length, std::uint32_t* flags) {
  const std::size_t n = std::min(length, pending_.size());
  if (n == pending_.size() && last_) {
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    ended_ = true;
  }
  if (n == 0 && !last_) {
    wake();
    return NGHTTP2_ERR_DEFERRED;
  }
  // The bytes stay where the writer has them until emit() puts them in the
  // connection's write batch: one copy, not one into nghttp2 and one out.
  *flags |= NGHTTP2_DATA_FLAG_NO_COPY;
  return static_cast<ssize_t>(n);
}

void Http2Exchange::emit(std::string& out, std::size_t length) {
  out.append(pending_.data(), length);
  pending_.remove_prefix(length);
  if (pending_.empty()) wake();
}

awaitable<Written> Http2Exchange::hand_over(asio::const_buffer body, bool last) {
  pending_ = {static_cast<const char*>(body.data()), body.size()};
  last_ = last;
  frames_.resume(id_);
  frames_.flush();
  // No co_return inside the loop: GCC 12 miscompiled that shape here (a
  // resume into a frame whose resume index was never written: SIGILL).
  error_code ec;
  for (;;) {
    if (pending_.empty() && (!last_ || ended_)) break;
    if (closed_) {
      ec = asio::error::connection_reset;
      break;
    }
    const bool woken = co_await wait(write_timeout);
    if (!woken) {
      // The client kept this stream's window (or the connection's) shut.
      frames_.reset(id_, Http2Reset::stalled);
      ec = beast::error::timeout;
      break;
    }
  }
  if (ec) {
    pending_ = {};
    keep_alive = false;
    co_return Written{ec, 0};
  }
  bytes_out += body.size();
  co_return Written{error_code{}, body.size()};
}

awaitable<Written> Http2Exchange::write_response(std::string_view head, std::string_view tail,
                                                 asio::const_buffer body, ResponseBody framing) {
  std::string text;
  text.reserve(head.size() + tail.size());
  text.append(head).append(tail);
  const auto parsed = h2_response_head(text);
  if (!parsed || closed_) co_return Written{asio::error::invalid_argument, 0};
  const bool with_body = framing.more || body.size() > 0;
  responded_ = true;
  if (!frames_.submit_head(*this, *parsed, with_body, false)) {
    co_return Written{asio::error::connection_reset, 0};
  }
  bytes_out += text.size();
  if (!with_body) {
    ended_ = true;
    frames_.flush();
    co_return Written{error_code{}, text.size()};
  }
  auto [ec, n] = co_await hand_over(body, !framing.more);
  co_return Written{ec, n + text.size()};
}

awaitable<Written> Http2Exchange::write_body(asio::const_buffer body, bool last) {
  if (ended_) co_return Written{error_code{}, 0};
  co_return co_await hand_over(body, last);
}

awaitable<Written> Http2Exchange::write_interim(std::string_view head) {
  const auto parsed = h2_response_head(head);
  if (!parsed || closed_) co_return Written{asio::error::invalid_argument, 0};
  if (!frames_.submit_head(*this, *parsed, false, true)) {
    co_return Written{asio::error::connection_reset, 0};
  }
  frames_.flush();
  bytes_out += head.size();
  co_return Written{error_code{}, head.size()};
}

void Http2Exchange::finish() {
  finished_ = true;
  if (!closed_ && (!responded_ || !ended_)) frames_.reset(id_, Http2Reset::incomplete);
  if (inbound_.size() > 0) {
    frames_.consume(id_, inbound_.size());
    inbound_.consume(inbound_.size());
  }
}

}  // namespace sumcache::daemon
