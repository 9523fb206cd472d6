#include "daemon/peer/summary_listener.h"

#include <boost/beast/ssl.hpp>

#include "daemon/server/listener.h"

namespace sumcache::daemon {

SummaryListener::SummaryListener(asio::any_io_executor executor, SummaryHandler handler,
                                 std::chrono::milliseconds timeout, asio::ssl::context* tls)
    : executor_(executor),
      acceptor_(executor),
      handler_(std::move(handler)),
      timeout_(timeout),
      tls_(tls) {}

error_code SummaryListener::listen(const tcp::endpoint& endpoint, std::string& failed_step) {
  return open_acceptor(acceptor_, endpoint, false, failed_step);
}

void SummaryListener::start() { asio::co_spawn(executor_, accept_loop(), asio::detached); }

void SummaryListener::stop() {
  error_code ignored;
  acceptor_.close(ignored);
}

awaitable<void> SummaryListener::accept_loop() {
  while (acceptor_.is_open()) {
    auto [ec, socket] = co_await acceptor_.async_accept(use_nothrow);
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
    if (ec) continue;  // EMFILE and the like: the next accept may succeed
    asio::co_spawn(executor_, serve(std::move(socket)), asio::detached);
  }
}

awaitable<void> SummaryListener::serve(tcp::socket socket) {
  error_code ec;
  const std::string remote = socket.remote_endpoint(ec).address().to_string();
  beast::tcp_stream stream(std::move(socket));
  if (tls_ == nullptr) {
    co_await serve_requests(stream, remote);
    stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    co_return;
  }
  beast::ssl_stream<beast::tcp_stream> secure(std::move(stream), *tls_);
  beast::get_lowest_layer(secure).expires_after(timeout_);
  auto [hec] = co_await secure.async_handshake(asio::ssl::stream_base::server, use_nothrow);
  if (hec) co_return;  // not TLS, or a certificate the client refused: nothing to answer
  co_await serve_requests(secure, remote);
}

template <class Stream>
awaitable<void> SummaryListener::serve_requests(Stream& stream, const std::string& remote) {
  beast::flat_buffer buffer;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(kMaxSummaryBytes);
    beast::get_lowest_layer(stream).expires_after(timeout_);
    auto [rec, n] = co_await http::async_read(stream, buffer, parser, use_nothrow);
    if (rec) break;  // closed, timed out, or malformed: nothing to answer
    auto& req = parser.get();
    SummaryRequest request{req.method(), std::string(req.target()),
                           std::string(req["X-Sumcache-Node"]),
                           std::string(req[http::field::if_none_match]), std::move(req.body()),
                           remote};
    SummaryResponse answer = handler_(request);
    http::response<http::string_body> res{static_cast<http::status>(answer.status), 11};
    res.set(http::field::server, "sumcached");
    if (!answer.etag.empty()) res.set(http::field::etag, answer.etag);
    if (!answer.body.empty()) res.set(http::field::content_type, answer.content_type);
    res.body() = std::move(answer.body);
    res.keep_alive(req.keep_alive());
    res.prepare_payload();
    beast::get_lowest_layer(stream).expires_after(timeout_);
    auto [wec, w] = co_await http::async_write(stream, res, use_nothrow);
    if (wec || !res.keep_alive()) break;
  }
}

}  // namespace sumcache::daemon
