#pragma once
// HTTP/2 on one client connection (RFC 9113), framed by nghttp2
// (docs/dependencies.md): every stream is an Http2Exchange answered by
// answer_request like an HTTP/1.1 request. The limits against the known
// HTTP/2 attacks are limits.http2_* (docs/http2.md): streams at once, a
// budget of RST_STREAM and of control frames a second (GOAWAY
// ENHANCE_YOUR_CALM past it), CONTINUATION frames per header block, decoded
// header bytes per stream (max_header_bytes), the HPACK table, a header block
// left open past the request timeout, an idle connection, and a stream whose
// flow-control window stays shut past the write timeout.

#include <memory>
#include <string>

#include "daemon/exchange/client_connection.h"
#include "daemon/exchange/proxy_context.h"
#include "daemon/session/http2_frames.h"

namespace sumcache::daemon {

class CacheService;

// The 24 octets a client opens an HTTP/2 connection with (RFC 9113 §3.4).
inline constexpr std::string_view kHttp2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

// Serves HTTP/2 on `client` until the connection ends; bytes already in its
// buffer (the preface, for h2c) are read first.
awaitable<void> serve_http2(WorkerContext& worker, CacheService* cache, ClientConnection& client);

// The socket, the timers and the handlers around one connection's Http2Frames.
class Http2Session {
 public:
  Http2Session(WorkerContext& worker, CacheService* cache, ClientConnection& client);
  Http2Session(const Http2Session&) = delete;
  Http2Session& operator=(const Http2Session&) = delete;

  // Until the connection ends and every handler has returned.
  awaitable<void> run();

 private:
  asio::any_io_executor executor() { return client_.stream.get_executor(); }
  awaitable<void> read_loop();
  awaitable<void> write_loop();
  // GOAWAY for a header block left open past the request timeout, and for a
  // connection idle (or draining) with no stream.
  awaitable<void> watchdog();
  awaitable<void> serve_stream(std::shared_ptr<Http2Exchange> stream);

  WorkerContext& worker_;
  CacheService* cache_;
  ClientConnection& client_;
  std::shared_ptr<const Settings> settings_;
  Http2Frames frames_;
  std::size_t handlers_ = 0;  // stream handlers started and not yet returned
  bool reading_ = true;
  bool done_ = false;
  std::chrono::steady_clock::time_point last_activity_;
  std::string out_;
  asio::steady_timer writer_signal_;
  asio::steady_timer watchdog_signal_;
  asio::steady_timer handlers_done_;
};

}  // namespace sumcache::daemon
