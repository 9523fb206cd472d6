#pragma once
// TestOrigin: a real HTTP/1.1 origin server on loopback for integration tests,
// in-process on a thread of its own (test_origin_server runs it standalone).
// Its behaviour comes from the request path and query, so tests need no setup.
//
// Routes (any method is accepted and logged):
//   /obj/<anything>  a deterministic body: deterministic_body(path, seed, size), where seed is
//                    body_seed, followed for each field F listed in vary by '|' and the request's
//                    value of F (so each variant has its own bytes). Query:
//                      size=N (default 1024)  status=C (200-599)  etag=E (quoted unless it is)
//                      max_age=S  cc=<Cache-Control, URL-encoded; max_age appended>
//                      last_modified=<epoch s>  expires=<epoch s | invalid (sends "0")>
//                      vary=F1,F2  set_cookie=1  body_seed=X
//                      surrogate_key=<URL-encoded Surrogate-Key value>
//                      fields=<URL-encoded "Name: value" lines, '\n'-separated, sent as given>
//                      ranges=1: a 200 honours one Range "bytes=a-b|a-|-n" with 206 and
//                        Content-Range (416 "bytes */size" when unsatisfiable; several ranges or
//                        an invalid one: the 200), unless If-Range names another ETag (strong,
//                        exact text) or another Last-Modified (then the 200)
//                      etag_from=F: the request's field F, when present, is the ETag, and
//                        "|" and it follow the body seed (one URL, a changed representation)
//                      interim=102|103  that interim response first (as /early-hints sends);
//                        interim_count=N (0-64, default 1) sends it N times
//                      echo_method=1  X-Request-Method: the request's method
//                    If-None-Match and If-Modified-Since give 304 per RFC 9110 §13.2.2 (412 for
//                    If-None-Match on unsafe methods); HEAD gets the GET head without the body.
//   /echo, /100-continue   the request as JSON (echo_format.h).
//   /status/<code>   that status.        /redirect?location=L   301 to L (default "/").
//   /close           closes the connection without a response.
//   /slow-body?size=N&chunk_delay_ms=D&chunk_size=K   the body in K-byte pieces, each after D ms
//                    (defaults 1024, 50, 256); bytes as /obj with the path /slow-body.
//   /early-hints     103 Early Hints (Link, X-Early-Hint: 103) before a 200.
//   anything else    404.
// Every route takes delay_ms=D (hold the response head back D ms), chunked=1 (send
// Transfer-Encoding: chunked), location=L and content_location=L (set those fields; L "self"
// is the request target as the origin received it).
// Any request with "Expect: 100-continue" gets 100 Continue before its body is read.
// Every response has Date = now, unless the query has no_date=1. Malformed numbers in the query
// give 400.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "tests/support/request_log.h"

namespace sumcache::testing {

struct TlsFiles {
  std::filesystem::path cert_chain;   // PEM
  std::filesystem::path private_key;  // PEM
};

// Every member has an initializer: see ClientRequest in http_client.h.
struct OriginOptions {
  std::string address = "127.0.0.1";             // or "::1"; anything but loopback is refused
  std::uint16_t port = 0;                        // 0: the kernel picks one, port() tells which
  std::optional<TlsFiles> tls{};                 // serve HTTPS instead of HTTP
  std::chrono::milliseconds io_timeout{10'000};  // each read and write; also the idle limit
  // Called on the origin's thread for each request, before it is answered; may be empty.
  std::function<void(const LoggedRequest&)> on_request{};
};

class TestOrigin {
 public:
  explicit TestOrigin(OriginOptions options = {});
  ~TestOrigin();
  TestOrigin(const TestOrigin&) = delete;
  TestOrigin& operator=(const TestOrigin&) = delete;

  // Binds and listens before it returns, so port() is valid and connections succeed at once;
  // then serves on a thread of its own. Fails on a bad address, a busy port or bad TLS files,
  // and when called a second time: an origin starts once.
  std::error_code start();
  // Closes the listener and every connection, mid-response or not, and joins the thread.
  // Idempotent; the log stays readable.
  void stop();

  std::uint16_t port() const;
  RequestLog& log() { return log_; }

 private:
  struct Impl;
  OriginOptions options_;
  RequestLog log_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sumcache::testing
