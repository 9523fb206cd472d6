#include "daemon/exchange/response_relay.h"

#include <chrono>
#include <span>
#include <utility>

#include "daemon/exchange/head_writer.h"
#include "daemon/http/http_date.h"
#include "daemon/log/log_limiter.h"

namespace sumcache::daemon {
namespace {

// The one body buffer of a relay: what upstream sent is copied here and
// written to the client before the next read, so a relay never holds more.
constexpr std::size_t kRelayChunk = 64 * 1024;

// Reads whatever part of the body upstream has sent, without waiting for
// `chunk` to fill: at least one byte unless the body ended or the read
// failed. A byte that has come is never held back for the next one, so
// server-sent events and long polls reach the client when they are sent.
template <class Stream>
awaitable<std::pair<error_code, std::size_t>> read_available(Stream& up, UpstreamResponse& upstream,
                                                             std::span<char> chunk,
                                                             std::chrono::milliseconds timeout) {
  auto& parser = *upstream.parser;
  auto& body = parser.get().body();
  std::size_t got = 0;
  // Each round consumes input or fails (a timeout at the latest): a chunk
  // header or trailer without data returns no byte and reads again.
  while (got == 0 && !parser.is_done()) {
    body.data = chunk.data();
    body.size = chunk.size();
    upstream.connection->expires_after(timeout);
    auto [ec, n] = co_await beast::http::async_read_some(up, upstream.buffer, parser, use_nothrow);
    got = chunk.size() - body.size;
    if (ec && ec != beast::http::error::need_buffer)
      co_return std::pair{upstream_read_error(ec), got};
  }
  co_return std::pair{error_code{}, got};
}

// Keeps the copy for the store while it fits, and hands it over once the
// body is complete (never for a body cut short).
void capture_piece(BodyCapture& capture, const char* data, std::size_t size, bool done) {
  if (!capture.active) return;
  if (capture.data.size() + size > capture.limit) {
    capture.active = false;
    std::string().swap(capture.data);
    return;
  }
  capture.data.append(data, size);
  if (done && capture.on_complete) {
    capture.on_complete(capture.data);
    capture.active = false;
  }
}

// How a relay ended: `upstream` tells an upstream failure (closed or stalled
// mid-body) from the client's.
struct RelayEnd {
  error_code ec;
  bool upstream = false;
  std::uint64_t body_bytes = 0;  // relayed to the client
};

template <class Stream>
awaitable<RelayEnd> relay_body(Stream& up, ClientExchange& client, UpstreamResponse& upstream,
                               const config::LimitsConfig& limits, BodyCapture& capture) {
  auto& parser = *upstream.parser;
  auto& msg = parser.get();
  capture_piece(capture, nullptr, 0, parser.is_done());
  if (capture.stream && parser.is_done()) co_await capture.stream({}, true);
  const std::string head = serialize_head(msg.base());
  auto [hec, hn] = co_await client.write_response(
      head, "\r\n", {}, {.more = !parser.is_done(), .chunked = msg.chunked()});
  if (hec) co_return RelayEnd{hec};
  std::vector<char> chunk(parser.is_done() ? 0 : kRelayChunk);
  // Beast reads at most the buffer's free capacity (512 bytes after a small
  // head): with room for a whole chunk, a fast origin's body comes in reads,
  // and goes out in writes, of up to 64 KiB rather than 512 bytes.
  if (!parser.is_done()) upstream.buffer.reserve(kRelayChunk);
  RelayEnd end;
  while (!parser.is_done()) {
    auto [read_ec, got] =
        co_await read_available(up, upstream, chunk, limits.upstream_io_timeout_ms);
    capture_piece(capture, chunk.data(), got, parser.is_done());
    if (capture.stream && (got > 0 || parser.is_done()) &&
        !co_await capture.stream({chunk.data(), got}, parser.is_done())) {
      capture.stream = nullptr;
    }
    // What came before a failure still goes to the client; the caller then
    // closes the connection without the final chunk (or short of the
    // Content-Length), so the client sees the truncation (RFC 9112 §8).
    if (got > 0 || parser.is_done()) {
      auto [ec, n] = co_await client.write_body(asio::buffer(chunk.data(), got), parser.is_done());
      if (ec) co_return RelayEnd{ec, false, end.body_bytes};
      end.body_bytes += got;
    }
    if (read_ec) co_return RelayEnd{read_ec, true, end.body_bytes};
  }
  co_return end;
}

// A body cut short upstream is a degraded path: counted, and logged at most
// once a second with the count of those not logged.
void note_cut_body(WorkerContext& worker, const UpstreamResponse& upstream, std::string_view url,
                   const RelayEnd& end) {
  auto& shared = worker.shared;
  worker.stats.upstream_truncated.fetch_add(1, std::memory_order_relaxed);
  worker.stats.count_line_too_long(end.ec);
  const auto held_back = shared.truncated_log.admit(LogLimiter::Clock::now());
  if (!held_back) return;
  shared.log.warn(
      "upstream " + upstream.connection->origin().pool_key() + " ended the body of " +
      std::string(url) + " after " + std::to_string(end.body_bytes) +
      " bytes: " + end.ec.message() + "; the client's connection was closed" +
      (*held_back > 0 ? " (" + std::to_string(*held_back) + " more since the last)" : ""));
}

// Every Transfer-Encoding line, joined as one list (RFC 9110 §5.3).
std::string transfer_codings(const beast::http::fields& fields) {
  std::string out;
  for (const auto& f : fields) {
    if (f.name() != beast::http::field::transfer_encoding) continue;
    if (!out.empty()) out += ", ";
    out.append(f.value());
  }
  return out;
}

}  // namespace

void prepare_client_head(beast::http::response<beast::http::buffer_body>& msg,
                         bool keep_alive, unsigned client_version, bool head_method,
                         std::string_view via, std::string_view x_cache) {
  const bool chunked = msg.chunked();
  const bool has_length = msg.has_content_length();
  // A body read until close under codings other than chunked (RFC 9112 §6.3
  // item 4) is relayed as it came, still coded: the client is told which
  // codings, with chunked added after them for an HTTP/1.1 client.
  const std::string codings = chunked ? std::string() : transfer_codings(msg.base());
  strip_hop_by_hop(msg.base());
  if (!codings.empty()) msg.set(beast::http::field::transfer_encoding, codings);
  append_via(msg.base(), via);
  // RFC 9110 §6.6.1: a recipient with a clock dates an undated response it forwards.
  if (msg.find(beast::http::field::date) == msg.end()) {
    msg.set(beast::http::field::date, format_http_date(std::chrono::floor<std::chrono::seconds>(
                                          std::chrono::system_clock::now())));
  }
  msg.set("X-Cache", x_cache);
  msg.version(client_version == 10 ? 10 : 11);
  // A body without a length is chunked for HTTP/1.1 clients; HTTP/1.0 ones
  // read it until the connection closes (RFC 9112 §6.3).
  const bool body_expected = !head_method && msg.result_int() != 204 && msg.result_int() != 304;
  if ((chunked || !has_length) && body_expected && client_version != 10) msg.chunked(true);
  const bool delimited_by_close = body_expected && !has_length && client_version == 10;
  msg.keep_alive(keep_alive && !delimited_by_close);
}

awaitable<error_code> relay_response(WorkerContext& worker, ClientExchange& client,
                                     UpstreamResponse& upstream, const config::LimitsConfig& limits,
                                     BodyCapture& capture, std::string_view url) {
  const RelayEnd end = co_await upstream.connection->visit(
      [&](auto& stream) { return relay_body(stream, client, upstream, limits, capture); });
  if (end.ec && end.upstream) note_cut_body(worker, upstream, url, end);
  co_return end.ec;
}

}  // namespace sumcache::daemon
