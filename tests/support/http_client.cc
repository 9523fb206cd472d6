#include "tests/support/http_client.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "tests/support/asio_support.h"
#include "tests/support/beast_convert.h"

namespace sumcache::testing {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using Clock = std::chrono::steady_clock;
using Request = http::request<http::string_body>;

constexpr std::uint32_t kHeaderLimit = 64 * 1024;
constexpr std::uint64_t kBodyLimit = 1ULL << 30;  // the test origin's largest body

Request make_request(const ClientRequest& request, const ClientOptions& options) {
  Request message;
  message.method_string(request.method);
  message.target(request.target);
  message.version(11);
  for (const auto& [name, value] : request.headers) message.insert(name, value);
  if (message.find(http::field::host) == message.end()) {
    const bool v6 = options.host.find(':') != std::string::npos;
    const std::string host = v6 ? "[" + options.host + "]" : options.host;
    message.set(http::field::host, host + ":" + std::to_string(options.port));
  }
  message.body() = request.body;
  const bool framed = message.find(http::field::content_length) != message.end() ||
                      message.find(http::field::transfer_encoding) != message.end();
  if (!framed) message.prepare_payload();
  return message;
}

bool expects_continue(const Request& message) {
  const auto expect = message.find(http::field::expect);
  return expect != message.end() && beast::iequals(expect->value(), "100-continue");
}

// Reads one response message, interim or final, into `out`.
template <class Stream>
asio::awaitable<std::error_code> read_one(Stream& stream, beast::flat_buffer& buffer,
                                          bool head_request, ClientResponse& out) {
  http::response_parser<http::string_body> parser;
  parser.header_limit(kHeaderLimit);
  parser.body_limit(kBodyLimit);
  parser.skip(head_request);  // a HEAD response announces a body it does not carry
  const auto [ec, n] = co_await http::async_read(stream, buffer, parser, kUseTuple);
  if (!ec) out = to_client_response(parser.release());
  co_return ec;
}

// With "Expect: 100-continue" the head and the body go out in separate writes; Nagle's
// algorithm would hold the body back until the server's delayed ACK.
void no_delay(beast::tcp_stream& stream) {
  boost::system::error_code ignored;
  stream.socket().set_option(asio::ip::tcp::no_delay(true), ignored);
}

bool is_interim(const ClientResponse& response) {
  return response.status / 100 == 1 && response.status != 101;
}

}  // namespace

struct HttpClient::Impl {
  ClientOptions options;
  asio::io_context ioc;
  std::optional<asio::ssl::context> tls;
  std::error_code tls_error;  // from loading the CA; reported by every send()
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;
  std::size_t opened = 0;

  bool connected() const { return plain || secure; }

  void close() {
    plain.reset();
    secure.reset();
    buffer.clear();
  }

  asio::awaitable<std::error_code> connect(Clock::time_point deadline) {
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(options.host, ec);
    if (ec) co_return ec;
    const asio::ip::tcp::endpoint endpoint(address, options.port);
    ++opened;
    if (!tls) {
      plain.emplace(ioc).expires_at(deadline);
      const auto [connect_ec] = co_await plain->async_connect(endpoint, kUseTuple);
      no_delay(*plain);
      co_return connect_ec;
    }
    auto& stream = secure.emplace(ioc, *tls);
    // SNI and the certificate's name check (RFC 6125) both use tls_host.
    ::SSL_set_tlsext_host_name(stream.native_handle(), options.tls_host.c_str());
    stream.set_verify_callback(asio::ssl::host_name_verification(options.tls_host));
    beast::get_lowest_layer(stream).expires_at(deadline);
    const auto [connect_ec] =
        co_await beast::get_lowest_layer(stream).async_connect(endpoint, kUseTuple);
    if (connect_ec) co_return connect_ec;
    no_delay(beast::get_lowest_layer(stream));
    const auto [handshake_ec] =
        co_await stream.async_handshake(asio::ssl::stream_base::client, kUseTuple);
    co_return handshake_ec;
  }

  // Reads responses into `out` until a final one, or until 100 Continue when
  // `until_continue`; the 1xx responses go to `interim`.
  template <class Stream>
  asio::awaitable<std::error_code> read_responses(Stream& stream, bool head, bool until_continue,
                                                  ClientResponse& out,
                                                  std::vector<InterimResponse>& interim) {
    for (;;) {
      if (const auto ec = co_await read_one(stream, buffer, head, out); ec) co_return ec;
      if (!is_interim(out)) co_return std::error_code{};
      interim.push_back({out.status, out.headers});
      if (until_continue && out.status == 100) co_return std::error_code{};
    }
  }

  template <class Stream>
  asio::awaitable<std::error_code> exchange_on(Stream& stream, const ClientRequest& request,
                                               Clock::time_point deadline, ClientResponse& out) {
    Request message = make_request(request, options);
    http::request_serializer<http::string_body> serializer{message};
    const bool head = message.method() == http::verb::head;
    beast::get_lowest_layer(stream).expires_at(deadline);
    std::vector<InterimResponse> interim;
    if (expects_continue(message)) {
      if (const auto [ec, n] = co_await http::async_write_header(stream, serializer, kUseTuple);
          ec) {
        co_return ec;
      }
      if (const auto ec = co_await read_responses(stream, head, true, out, interim); ec) {
        co_return ec;
      }
      if (!is_interim(out)) {
        out.keep_alive = false;  // the body was never sent: the framing is lost
        out.interim = std::move(interim);
        co_return std::error_code{};
      }
    }
    if (const auto [ec, n] = co_await http::async_write(stream, serializer, kUseTuple); ec) {
      co_return ec;
    }
    if (const auto ec = co_await read_responses(stream, head, false, out, interim); ec) {
      co_return ec;
    }
    out.interim = std::move(interim);
    co_return std::error_code{};
  }

  asio::awaitable<std::error_code> exchange(const ClientRequest& request, ClientResponse& out) {
    const auto deadline = Clock::now() + options.timeout;
    if (!connected()) {
      if (const auto ec = co_await connect(deadline); ec) co_return ec;
    }
    if (secure) co_return co_await exchange_on(*secure, request, deadline, out);
    co_return co_await exchange_on(*plain, request, deadline, out);
  }
};

HttpClient::HttpClient(ClientOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  if (impl_->options.tls_ca) {
    auto& tls = impl_->tls.emplace(asio::ssl::context::tls_client);
    tls.set_verify_mode(asio::ssl::verify_peer);
    boost::system::error_code ec;
    tls.load_verify_file(impl_->options.tls_ca->string(), ec);
    impl_->tls_error = ec;
  }
}

HttpClient::~HttpClient() = default;

Result<ClientResponse> HttpClient::send(const ClientRequest& request) {
  if (impl_->tls_error) return impl_->tls_error;
  ClientResponse response;
  const std::error_code ec = run_sync(impl_->ioc, impl_->exchange(request, response));
  if (ec || !response.keep_alive || !impl_->options.reuse_connection) impl_->close();
  if (ec) return ec;
  return response;
}

std::size_t HttpClient::connections_opened() const { return impl_->opened; }

Result<ClientResponse> http_get(std::uint16_t port, std::string target) {
  HttpClient client({.port = port, .reuse_connection = false});
  return client.send({.target = std::move(target)});
}

}  // namespace sumcache::testing
