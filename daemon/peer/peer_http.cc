#include "daemon/peer/peer_http.h"

namespace sumcache::daemon {

awaitable<std::tuple<error_code, PeerHttpReply>> peer_http_exchange(
    asio::any_io_executor executor, PeerHttpRequest request, std::chrono::milliseconds timeout) {
  PeerHttpReply reply;
  tcp::resolver resolver(executor);
  beast::tcp_stream stream(executor);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // The resolver has no deadline of its own: a timer cancels it.
  asio::steady_timer timer(executor, deadline);
  timer.async_wait([&resolver](error_code ec) {
    if (!ec) resolver.cancel();
  });
  auto [rec, endpoints] =
      co_await resolver.async_resolve(request.host, std::to_string(request.port), use_nothrow);
  timer.cancel();
  if (rec) co_return std::tuple{rec, reply};
  stream.expires_at(deadline);
  auto [cec, ep] = co_await stream.async_connect(endpoints, use_nothrow);
  if (cec) co_return std::tuple{cec, reply};

  http::request<http::string_body> req{request.method, request.target, 11};
  req.set(http::field::host, request.host + ":" + std::to_string(request.port));
  req.set(http::field::user_agent, "sumcached-peer");
  if (!request.from.empty()) req.set("X-Sumcache-Node", request.from);
  if (!request.if_none_match.empty()) req.set(http::field::if_none_match, request.if_none_match);
  if (request.method == http::verb::post) {
    req.set(http::field::content_type, kSummaryType);
    req.body() = std::move(request.body);
  }
  req.keep_alive(false);
  req.prepare_payload();
  const auto sent_at = std::chrono::steady_clock::now();
  auto [wec, written] = co_await http::async_write(stream, req, use_nothrow);
  if (wec) co_return std::tuple{wec, reply};

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxSummaryBytes);
  auto [ec, read] = co_await http::async_read(stream, buffer, parser, use_nothrow);
  if (ec) co_return std::tuple{ec, reply};
  reply.rtt = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - sent_at);
  auto& res = parser.get();
  reply.status = res.result_int();
  reply.etag = std::string(res[http::field::etag]);
  reply.body = std::move(res.body());
  error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  co_return std::tuple{error_code{}, std::move(reply)};
}

}  // namespace sumcache::daemon
