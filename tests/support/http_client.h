#pragma once
// HttpClient: a small synchronous HTTP/1.1 client for tests, on Beast. Every
// exchange has a deadline; a connection is reused while the server keeps it
// open. Speaks HTTPS with certificate verification when given a CA.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "filters/result.h"
#include "tests/support/header_list.h"

namespace sumcache::testing {

// Members of the option structs all have initializers, so that designated initializers
// leaving some out do not trip GCC's -Wmissing-field-initializers (GCC bug 96868).
struct ClientRequest {
  std::string method = "GET";
  // origin-form ("/a?b=1"), or absolute-form ("http://origin:80/a") for a forward proxy
  std::string target = "/";
  // Sent as given, in order. Host is added when missing; Content-Length too when the
  // request has neither it nor Transfer-Encoding (chunked then frames the body).
  HeaderList headers{};
  std::string body{};
};

struct InterimResponse {
  unsigned status = 0;
  HeaderList headers;
};

struct ClientResponse {
  unsigned status = 0;
  std::string reason;
  HeaderList headers;
  std::string body;                      // chunked framing removed
  std::vector<InterimResponse> interim;  // the 1xx responses before this one
  bool keep_alive = false;               // the server allows another request on the connection

  std::optional<std::string> header(std::string_view name) const {
    return find_header(headers, name);
  }
};

// A response's X-Cache field: which way sumcached served it (HIT, MISS,
// REFRESH_HIT...); "(none)" without one.
inline std::string x_cache(const ClientResponse& r) {
  return r.header("X-Cache").value_or("(none)");
}

struct ClientOptions {
  std::string host = "127.0.0.1";  // an IPv4 or IPv6 literal
  std::uint16_t port = 0;
  std::chrono::milliseconds timeout{5000};  // for a whole exchange: connect, write, read
  bool reuse_connection = true;             // false: a new connection, closed after each response
  // HTTPS: the CA to verify the server's certificate with, and the name it must carry.
  std::optional<std::filesystem::path> tls_ca{};
  std::string tls_host = "localhost";
};

class HttpClient {
 public:
  explicit HttpClient(ClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `request` and reads its response, skipping and collecting 1xx responses. With
  // "Expect: 100-continue" the body waits for 100 Continue (RFC 9110 §10.1.1); a final
  // status instead is the response, the body is never sent and the connection is closed.
  // A failure (timeout, refused, reset, malformed response) closes the connection.
  Result<ClientResponse> send(const ClientRequest& request);

  // How many connections send() has opened: tests of keep-alive count them.
  std::size_t connections_opened() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One GET to 127.0.0.1:port on a connection of its own.
Result<ClientResponse> http_get(std::uint16_t port, std::string target);

}  // namespace sumcache::testing
