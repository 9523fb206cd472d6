#include "daemon/peer/peer_http.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/beast/ssl.hpp>

#include "daemon/net/connect_by_name.h"
#include "protocol/channel_auth.h"
#include "protocol/channel_nonce.h"

namespace sumcache::daemon {

namespace {

// The answer's Sumcache-Channel-Auth against this request's nonce.
void check_answer(const beast::http::response<beast::http::string_body>& res,
                  const PeerHttpRequest& request, std::string_view nonce, PeerHttpReply& reply) {
  const auto auths = res.equal_range(protocol::kChannelAuthHeader);
  if (std::distance(auths.first, auths.second) != 1) {
    reply.auth_error = protocol::ChannelAuthErrc::missing;
    return;
  }
  const std::string_view responder =
      request.to == protocol::kAnyReceiver ? std::string_view{} : std::string_view(request.to);
  const auto signer = protocol::verify_channel_answer(
      auths.first->value(), {responder, request.from, nonce, res.result_int(), res.body().size()},
      request.secret);
  if (!signer) {
    reply.auth_error = signer.error();
    return;
  }
  reply.verified = true;
}

template <class Stream>
awaitable<error_code> exchange_on(Stream& stream, PeerHttpRequest& request, PeerHttpReply& reply) {
  beast::http::request<beast::http::string_body> req{request.method, request.target, 11};
  req.set(beast::http::field::host, request.host + ":" + std::to_string(request.port));
  req.set(beast::http::field::user_agent, "sumcached-peer");
  if (request.method == beast::http::verb::post) {
    req.set(beast::http::field::content_type, request.content_type);
    req.body() = std::move(request.body);
  }
  req.keep_alive(false);
  req.prepare_payload();
  const std::string nonce = request.to.empty() ? std::string() : protocol::fresh_channel_nonce();
  if (!request.to.empty()) {
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    const std::string auth = protocol::sign_channel_request(
        req.method_string(), req.target(),
        {request.from, request.to, now, nonce, req.body().size(), {}}, request.secret);
    // Empty when libcrypto fails, or the ids break the grammar: nothing worth sending.
    if (auth.empty()) co_return make_error_code(protocol::ChannelAuthErrc::malformed);
    req.set(protocol::kChannelAuthHeader, auth);
  }
  const auto sent_at = std::chrono::steady_clock::now();
  auto [wec, written] = co_await beast::http::async_write(stream, req, use_nothrow);
  if (wec) co_return wec;
  beast::flat_buffer buffer;
  beast::http::response_parser<beast::http::string_body> parser;
  parser.body_limit(request.max_reply_bytes);
  auto [ec, read] = co_await beast::http::async_read(stream, buffer, parser, use_nothrow);
  if (ec) co_return ec;
  reply.rtt = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - sent_at);
  auto& res = parser.get();
  reply.status = res.result_int();
  if (!request.to.empty()) check_answer(res, request, nonce, reply);
  reply.body = std::move(res.body());
  co_return error_code{};
}

}  // namespace

awaitable<std::tuple<error_code, PeerHttpReply>> peer_http_exchange(
    asio::any_io_executor executor, PeerHttpRequest request, std::chrono::milliseconds timeout,
    asio::ssl::context* tls) {
  PeerHttpReply reply;
  beast::tcp_stream stream(executor);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const ConnectOutcome connected =
      co_await connect_by_name(stream, request.host, request.port, deadline);
  if (connected.ec) co_return std::tuple{connected.ec, reply};
  error_code ec;
  if (tls == nullptr) {
    ec = co_await exchange_on(stream, request, reply);
    error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    co_return std::tuple{ec, std::move(reply)};
  }
  beast::ssl_stream<beast::tcp_stream> secure(std::move(stream), *tls);
  error_code ip_ec;
  asio::ip::make_address(request.host, ip_ec);
  // SNI carries names only (RFC 6066 §3).
  if (ip_ec && !SSL_set_tlsext_host_name(secure.native_handle(), request.host.c_str())) {
    co_return std::tuple{
        error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category()), reply};
  }
  secure.set_verify_callback(asio::ssl::host_name_verification(request.host));
  auto [hec] = co_await secure.async_handshake(asio::ssl::stream_base::client, use_nothrow);
  if (hec) co_return std::tuple{hec, reply};
  ec = co_await exchange_on(secure, request, reply);
  co_return std::tuple{ec, std::move(reply)};
}

}  // namespace sumcache::daemon
