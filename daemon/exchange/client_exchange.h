#pragma once
// One request and its response on a client connection, whatever protocol
// carries them: HTTP/1.1 (daemon/session/http1_exchange.h) or an HTTP/2
// stream. Everything below the session (the cache, the forwarder, the tunnel,
// purges, digests, errors) reads the request and writes the response through
// this seam only, so none of it branches on the protocol.
//
// A response head goes in as HTTP/1.1 text (a status line and field lines,
// each ending in CRLF, then the blank line), which is how the store keeps
// heads and what a hit sends with no copy; a protocol with another framing
// converts it once at the seam.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "daemon/net/asio.h"
#include "daemon/net/cidr.h"

namespace sumcache::daemon {

// What a write did: its error and the bytes that went out.
using Written = std::tuple<error_code, std::size_t>;

// How the body after a response head goes.
struct ResponseBody {
  bool more = false;     // more body bytes follow through write_body
  bool chunked = false;  // the head says Transfer-Encoding: chunked (HTTP/1.1 framing)
};

class ClientExchange {
 public:
  ClientExchange(const Ip6Bytes& address, const std::string& address_text)
      : address_(address), address_text_(address_text) {}
  virtual ~ClientExchange() = default;
  ClientExchange(const ClientExchange&) = delete;
  ClientExchange& operator=(const ClientExchange&) = delete;

  // The request's head as received.
  virtual const beast::http::request_header<>& request() const = 0;

  // The request body: all read, its declared length, sent chunked (its length
  // unknown ahead).
  virtual bool body_done() const = 0;
  virtual std::optional<std::uint64_t> body_length() const = 0;
  virtual bool body_chunked() const = 0;
  // Reads body bytes into `into`: at least one unless the body has ended (0,
  // and body_done()). Once a CONNECT is answered with 2xx, the body is what
  // the client sends into the tunnel.
  virtual awaitable<Written> read_body(asio::mutable_buffer into,
                                       std::chrono::milliseconds timeout) = 0;

  // Starts the response: `head` then `tail` are its head text (`tail` ends
  // with the blank line; either may hold fields), `body` its first body bytes.
  virtual awaitable<Written> write_response(std::string_view head, std::string_view tail,
                                            asio::const_buffer body, ResponseBody framing) = 0;
  // More body bytes; `last` ends the body (in a tunnel, the client's side of it).
  virtual awaitable<Written> write_body(asio::const_buffer body, bool last) = 0;
  // An interim 1xx response's head text, blank line included.
  virtual awaitable<Written> write_interim(std::string_view head) = 0;

  const Ip6Bytes& address() const { return address_; }
  const std::string& address_text() const { return address_text_; }

  // False once this response must be the connection's last (a failed write,
  // an unread body, Connection: close); HTTP/1.1 honours it.
  bool keep_alive = true;
  // Response bytes written so far, for the access log.
  std::uint64_t bytes_out = 0;
  // The bound on each write of the response.
  std::chrono::milliseconds write_timeout{30000};

 private:
  const Ip6Bytes& address_;
  const std::string& address_text_;
};

// Writes a whole message built by Beast (an error, a purge's answer).
awaitable<Written> write_message(ClientExchange& client,
                                 const beast::http::response<beast::http::string_body>& res);

}  // namespace sumcache::daemon
