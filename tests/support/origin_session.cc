#include "tests/support/origin_session.h"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <vector>

#include "tests/support/asio_support.h"
#include "tests/support/beast_convert.h"
#include "tests/support/origin_routes.h"

namespace sumcache::testing {

namespace {

namespace beast = boost::beast;
using Ms = std::chrono::milliseconds;

// Larger than Beast's 8 KiB default so that the origin never refuses what a proxy under
// test lets through; the proxy's own limits are what tests probe.
constexpr std::uint32_t kHeaderLimit = 64 * 1024;
constexpr std::uint64_t kBodyLimit = 256ULL << 20;

asio::awaitable<bool> pause(Ms duration) {
  if (duration.count() == 0) co_return true;
  asio::steady_timer timer(co_await asio::this_coro::executor, duration);
  const auto [ec] = co_await timer.async_wait(kUseTuple);
  co_return !ec;
}

// 100 Continue, 102 Processing, or 103 Early Hints with its Link and a field of its own.
template <class Stream>
asio::awaitable<bool> write_interim(Stream& stream, unsigned status, std::string_view reason,
                                    const SessionConfig& config) {
  http::response<http::empty_body> interim;
  interim.version(11);
  interim.result(status);
  interim.reason(reason);
  if (status == 103) {
    interim.set(http::field::link, kEarlyHintsLink);
    interim.set(kEarlyHintsOnlyField, "103");
  }
  beast::get_lowest_layer(stream).expires_after(config.io_timeout);
  const auto [ec, n] = co_await http::async_write(stream, interim, kUseTuple);
  co_return !ec;
}

// Head, then the body in pieces of plan.piece_bytes, each after plan.piece_delay; Beast's
// serializer adds the chunk framing when the head says chunked.
template <class Stream>
asio::awaitable<bool> write_response(Stream& stream, ResponsePlan& plan,
                                     const SessionConfig& config) {
  for (unsigned i = 0; plan.interim != 0 && i < plan.interim_count; ++i) {
    if (!co_await write_interim(stream, plan.interim,
                                plan.interim == 102 ? "Processing" : "Early Hints", config)) {
      co_return false;
    }
  }
  if (!co_await pause(plan.head_delay)) co_return false;
  http::response<http::buffer_body> response{std::move(plan.head.base())};
  response.body().data = nullptr;
  response.body().more = plan.send_body;
  http::response_serializer<http::buffer_body> serializer{response};
  auto& socket = beast::get_lowest_layer(stream);
  socket.expires_after(config.io_timeout);
  if (const auto [ec, n] = co_await http::async_write_header(stream, serializer, kUseTuple); ec) {
    co_return false;
  }
  if (!plan.send_body) co_return true;
  std::vector<char> piece(std::min<std::uint64_t>(plan.piece_bytes, plan.body.size()));
  for (std::uint64_t offset = 0; offset < plan.body.size(); offset += piece.size()) {
    piece.resize(std::min<std::uint64_t>(piece.size(), plan.body.size() - offset));
    plan.body.fill(offset, piece);
    if (!co_await pause(plan.piece_delay)) co_return false;
    response.body().data = piece.data();
    response.body().size = piece.size();
    socket.expires_after(config.io_timeout);
    const auto [ec, n] = co_await http::async_write(stream, serializer, kUseTuple);
    if (ec && ec != http::error::need_buffer) co_return false;
  }
  response.body().data = nullptr;
  response.body().more = false;
  socket.expires_after(config.io_timeout);
  const auto [ec, n] = co_await http::async_write(stream, serializer, kUseTuple);
  co_return !ec;
}

void record(const OriginRequest& request, const SessionConfig& config) {
  LoggedRequest entry;
  entry.method = std::string(request.method_string());
  entry.target = std::string(request.target());
  entry.path = parse_target(entry.target).path;
  entry.headers = header_list(request.base());
  entry.body_bytes = request.body().size();
  entry.time = std::chrono::system_clock::now();
  if (config.on_request) config.on_request(entry);
  config.log->record(std::move(entry));
}

bool expects_continue(const http::request_header<>& header) {
  const auto expect = header.find(http::field::expect);
  return expect != header.end() && beast::iequals(expect->value(), "100-continue");
}

// Requests one after another until the client is done, something fails, or a response
// ends the connection. Any read error ends it silently: the origin answers well-formed
// requests only.
template <class Stream>
asio::awaitable<void> serve_requests(Stream& stream, const SessionConfig& config) {
  beast::flat_buffer buffer;
  auto& socket = beast::get_lowest_layer(stream);
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(kBodyLimit);
    socket.expires_after(config.io_timeout);
    if (const auto [ec, n] = co_await http::async_read_header(stream, buffer, parser, kUseTuple);
        ec) {
      co_return;
    }
    // RFC 9110 §10.1.1: the client may hold the body back until it sees 100 Continue.
    if (expects_continue(parser.get()) &&
        !co_await write_interim(stream, 100, "Continue", config)) {
      co_return;
    }
    socket.expires_after(config.io_timeout);
    if (const auto [ec, n] = co_await http::async_read(stream, buffer, parser, kUseTuple); ec) {
      co_return;
    }
    const OriginRequest request = parser.release();
    record(request, config);
    ResponsePlan plan = plan_response(request, std::chrono::system_clock::now());
    if (plan.close_without_response) co_return;
    const bool keep_alive = plan.head.keep_alive();
    if (!co_await write_response(stream, plan, config) || !keep_alive) co_return;
  }
}

}  // namespace

asio::awaitable<void> serve_plain(asio::ip::tcp::socket socket, const SessionConfig& config) {
  beast::tcp_stream stream(std::move(socket));
  co_await serve_requests(stream, config);
  beast::error_code ignored;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
}

asio::awaitable<void> serve_tls(asio::ip::tcp::socket socket, asio::ssl::context& tls,
                                const SessionConfig& config) {
  beast::ssl_stream<beast::tcp_stream> stream(beast::tcp_stream(std::move(socket)), tls);
  beast::get_lowest_layer(stream).expires_after(config.io_timeout);
  if (const auto [ec] = co_await stream.async_handshake(asio::ssl::stream_base::server, kUseTuple);
      ec) {
    co_return;
  }
  co_await serve_requests(stream, config);
  beast::get_lowest_layer(stream).expires_after(config.io_timeout);
  co_await stream.async_shutdown(kUseTuple);
}

}  // namespace sumcache::testing
