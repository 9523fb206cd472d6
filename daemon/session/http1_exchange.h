#pragma once
// A request and its response on an HTTP/1.1 connection (client_exchange.h):
// the head as Beast's parser read it, the body read through that parser, the
// response written as given, in chunks when its head says chunked. Once a
// CONNECT is answered with 2xx, the body both ways is the connection's bytes.

#include "daemon/exchange/client_connection.h"
#include "daemon/exchange/client_exchange.h"

namespace sumcache::daemon {

using RequestParser = beast::http::request_parser<beast::http::buffer_body>;

class Http1Exchange final : public ClientExchange {
 public:
  Http1Exchange(ClientConnection& connection, RequestParser& parser)
      : ClientExchange(connection.address, connection.address_text),
        connection_(connection),
        parser_(parser) {}

  const beast::http::request_header<>& request() const override { return parser_.get(); }
  bool body_done() const override { return tunnel_ ? tunnel_ended_ : parser_.is_done(); }
  std::optional<std::uint64_t> body_length() const override;
  bool body_chunked() const override { return parser_.chunked(); }
  awaitable<Written> read_body(asio::mutable_buffer into,
                               std::chrono::milliseconds timeout) override;

  awaitable<Written> write_response(std::string_view head, std::string_view tail,
                                    asio::const_buffer body, ResponseBody framing) override;
  awaitable<Written> write_body(asio::const_buffer body, bool last) override;
  awaitable<Written> write_interim(std::string_view head) override;

 private:
  template <std::size_t N>
  awaitable<Written> send(const std::array<asio::const_buffer, N>& buffers);

  ClientConnection& connection_;
  RequestParser& parser_;
  bool chunked_ = false;  // the response's body goes in chunks
  bool tunnel_ = false;   // a CONNECT answered with 2xx
  bool tunnel_ended_ = false;
};

}  // namespace sumcache::daemon
