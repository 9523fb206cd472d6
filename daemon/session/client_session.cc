#include "daemon/session/client_session.h"

#include "daemon/exchange/client_connection.h"
#include "daemon/exchange/forward_flow.h"
#include "daemon/exchange/header_convert.h"
#include "daemon/http/message_framing.h"
#include "daemon/net/address_bytes.h"
#include "daemon/session/connection_close.h"
#include "daemon/session/http1_exchange.h"
#include "daemon/session/http2_session.h"
#include "daemon/session/read_failure.h"
#include "daemon/session/request_answer.h"
#include "daemon/session/tls_accept.h"

namespace sumcache::daemon {
namespace {

constexpr int kClientSendBuffer = 1 << 20;
// Room in the read buffer beyond a full head: for what one read brings past
// it, and for one chunk line or trailer section while a body streams.
constexpr std::size_t kReadBufferSlack = 64 * 1024;

struct ConnectionCount {
  explicit ConnectionCount(std::atomic<std::uint32_t>& n) : n_(n) {}
  ~ConnectionCount() { n_.fetch_sub(1, std::memory_order_relaxed); }
  ConnectionCount(const ConnectionCount&) = delete;
  ConnectionCount& operator=(const ConnectionCount&) = delete;
  std::atomic<std::uint32_t>& n_;
};

// Waits for the first byte of the next request under the idle timeout. The
// connection sits in the worker's idle set meanwhile, so a drain can close it.
awaitable<bool> wait_for_request(WorkerContext& worker, ClientConnection& client,
                                 std::chrono::milliseconds idle) {
  if (client.buffer.size() > 0) co_return true;
  worker.idle.push_back(client);
  client.stream.expires_after(idle);
  auto [ec, n] = co_await client.stream.async_read_some(client.buffer.prepare(4096), use_nothrow);
  client.unlink();
  if (ec || n == 0) co_return false;
  client.buffer.commit(n);
  co_return true;
}

// Reads a request head within `timeout`. A tcp_stream deadline would close
// the socket when it expires, leaving no way to send the 408 (RFC 9110
// §15.5.9); this timer only cancels the read.
awaitable<std::tuple<error_code, std::size_t>> read_head(
    ClientConnection& client, beast::http::request_parser<beast::http::buffer_body>& parser,
    std::chrono::milliseconds timeout) {
  // The expiry may already be queued when the head arrives: it then finds the
  // read over (`reading` false) and touches nothing.
  struct Race {
    bool reading = true;
    bool timed_out = false;
  };
  auto race = std::make_shared<Race>();
  asio::steady_timer deadline(client.stream.get_executor(), timeout);
  deadline.async_wait([race, &socket = client.stream.socket()](error_code ec) {
    if (ec || !race->reading) return;
    race->timed_out = true;
    socket.cancel();
  });
  client.stream.expires_never();
  auto [ec, n] =
      co_await beast::http::async_read_header(client.stream, client.buffer, parser, use_nothrow);
  race->reading = false;
  deadline.cancel();
  if (ec && race->timed_out) ec = beast::error::timeout;
  co_return std::tuple{ec, n};
}

// Beast's own refusals that are about where the body ends.
bool is_framing_error(error_code ec) {
  return ec == beast::http::error::bad_transfer_encoding ||
         ec == beast::http::error::bad_content_length ||
         ec == beast::http::error::multiple_content_length;
}

// Counts a request refused for its framing and logs it, at most one line a
// second with the number held back, so a flood of them cannot fill the log.
void note_framing_refusal(WorkerContext& worker, const ClientExchange& client,
                          std::string_view reason) {
  ProxyShared& shared = worker.shared;
  worker.stats.framing_refused_requests.fetch_add(1, std::memory_order_relaxed);
  if (!shared.log.enabled(LogLevel::warn)) return;
  const auto held_back = shared.framing_log.admit(LogLimiter::Clock::now());
  if (!held_back) return;
  std::string line =
      "refused a request from " + client.address_text() + ": " + std::string(reason);
  if (*held_back > 0) line += " (" + std::to_string(*held_back) + " more since the last line)";
  shared.log.warn(line);
}

// Who the client is, and the socket options every client connection gets.
bool prepare(ClientConnection& client) {
  error_code ec;
  const auto peer = client.stream.socket().remote_endpoint(ec);
  if (ec) return false;
  client.address_text = peer.address().to_string();
  client.address = ip6_bytes(peer.address());
  client.stream.socket().set_option(tcp::no_delay(true), ec);
  // The kernel starts a send buffer at 16 KiB (tcp_wmem) and grows it slowly:
  // a 256 KiB hit then takes many writev rounds through epoll. nginx's
  // listen sndbuf= does the same.
  client.stream.socket().set_option(asio::socket_base::send_buffer_size(kClientSendBuffer), ec);
  return true;
}

// Requests one at a time until the connection ends. `peers_only`: the peer
// object listener, where anything but a verified peer request gets 403.
awaitable<void> serve_requests(WorkerContext& worker, CacheService* cache, ClientConnection& client,
                               bool peers_only) {
  ProxyShared& shared = worker.shared;
  error_code ec;
  bool closed_by_answer = false;  // a response said Connection: close
  while (client.keep_alive && !shared.draining.load(std::memory_order_relaxed)) {
    const auto settings = shared.settings.get();
    const auto& limits = settings->config.limits;
    // Beast's parser holds a chunk line (extensions included) or a trailer
    // section whole in this buffer with no limit of its own: an endless chunk
    // extension would grow it without bound. A full buffer fails the read (400).
    client.buffer.max_size(limits.max_header_bytes + kReadBufferSlack);
    if (!co_await wait_for_request(worker, client, limits.client_idle_timeout_ms)) break;
    AccessRecord record;
    record.start = std::chrono::system_clock::now();
    const auto started = std::chrono::steady_clock::now();
    RequestParser parser;
    parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
    parser.body_limit(limits.max_body_bytes);
    Http1Exchange exchange(client, parser);
    exchange.write_timeout = limits.upstream_io_timeout_ms;
    auto [rec, n] = co_await read_head(client, parser, limits.client_request_timeout_ms);
    unsigned status = 0;
    if (rec) {
      auto failure = read_failure(rec);
      if (!failure) break;
      exchange.keep_alive = false;
      record.client = client.address_text;
      record.method = "-";
      record.url = "-";
      record.result = CacheResult::error;
      if (is_framing_error(rec)) note_framing_refusal(worker, exchange, failure->second);
      status = co_await send_error(exchange, *settings, failure->first, failure->second, 11);
    } else {
      worker.stats.requests.fetch_add(1, std::memory_order_relaxed);
      worker.stats.bytes_in.fetch_add(n, std::memory_order_relaxed);
      const HeaderList framing_lines = framing_fields(parser.get().base());
      // Every Connection line counts: "close" on any of them wins (Beast's
      // message-level keep_alive() reads the first line only).
      exchange.keep_alive =
          connection_persists(parser.get().version(), framing_lines) && !shared.draining.load();
      // Where the body ends is decided here, before dispatch reads any of it:
      // a message whose framing is ambiguous would let its body be taken for
      // the next request (RFC 9112 §6.3, §11.2). The connection then closes.
      const auto framing = request_framing(parser.get().version(), framing_lines);
      if (const auto* refusal = std::get_if<FramingRefusal>(&framing)) {
        exchange.keep_alive = false;
        record.result = CacheResult::error;
        const std::string reason = make_error_code(refusal->reason).message();
        note_framing_refusal(worker, exchange, reason);
        status = co_await send_error(exchange, *settings,
                                     static_cast<beast::http::status>(refusal->status),
                                     "malformed request: " + reason, parser.get().version());
      } else {
        status = co_await answer_request(worker, cache, *settings, exchange, record, peers_only);
      }
      // An unread request body leaves no way to find the next request.
      if (!parser.is_done()) exchange.keep_alive = false;
      if (parser.is_done() && parser.content_length()) {
        worker.stats.bytes_in.fetch_add(*parser.content_length(), std::memory_order_relaxed);
      }
    }
    client.keep_alive = exchange.keep_alive;
    log_exchange(worker, record, status, exchange, started);
    closed_by_answer = !client.keep_alive;
  }
  if (closed_by_answer) {
    co_await close_lingering(client);
  } else if (!co_await client.stream.close_tls(std::chrono::seconds(1))) {
    client.stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  }
}

// h2c by prior knowledge (RFC 9113 §3.3): the connection opens with the
// preface. Reads until the buffer holds the preface or differs from it (an
// HTTP/1.1 request differs by its second byte at the latest).
awaitable<bool> opens_with_preface(ClientConnection& client, std::chrono::milliseconds timeout) {
  client.stream.expires_after(timeout);
  for (;;) {
    const auto data = client.buffer.data();
    const std::string_view got(static_cast<const char*>(data.data()), data.size());
    const std::size_t n = std::min(got.size(), kHttp2Preface.size());
    if (got.substr(0, n) != kHttp2Preface.substr(0, n)) co_return false;
    if (n == kHttp2Preface.size()) co_return true;
    auto [ec, r] = co_await client.stream.async_read_some(client.buffer.prepare(4096), use_nothrow);
    if (ec) co_return false;
    client.buffer.commit(r);
  }
}

// ALPN chose h2 in the handshake (tls/server_tls.cc offers it where http2 is on).
bool negotiated_h2(ClientStream::Tls& tls) {
  const unsigned char* data = nullptr;
  unsigned size = 0;
  SSL_get0_alpn_selected(tls.native_handle(), &data, &size);
  return std::string_view(reinterpret_cast<const char*>(data), size) == "h2";
}

}  // namespace

awaitable<void> serve_client(WorkerContext& worker, CacheService* cache, tcp::socket socket,
                             TlsListener* tls, bool h2c) {
  ConnectionCount count(worker.shared.connections);
  if (tls == nullptr) {
    ClientConnection client{ClientStream(std::move(socket))};
    if (!prepare(client)) co_return;
    if (h2c && co_await opens_with_preface(
                   client, worker.shared.settings.get()->config.limits.client_idle_timeout_ms)) {
      co_await serve_http2(worker, cache, client);
      co_return;
    }
    co_await serve_requests(worker, cache, client, false);
    co_return;
  }
  auto accepted = co_await accept_tls(worker.shared, *tls, std::move(socket));
  if (!accepted) co_return;
  ClientConnection client{std::move(accepted->stream)};
  client.tls_hold = std::move(accepted->hold);
  if (!prepare(client)) co_return;
  if (negotiated_h2(*client.stream.tls())) {
    co_await serve_http2(worker, cache, client);
    co_return;
  }
  co_await serve_requests(worker, cache, client, false);
}

awaitable<void> serve_peer_objects(WorkerContext& worker, CacheService* cache, tcp::socket socket,
                                   asio::ssl::context& tls) {
  ProxyShared& shared = worker.shared;
  ConnectionCount count(shared.connections);
  ClientConnection client{ClientStream(ClientStream::Tls(std::move(socket), tls))};
  if (!prepare(client)) co_return;
  const auto settings = shared.settings.get();
  if (settings->peer_sources && !settings->peer_sources->allows(client.address)) {
    note_peer_object_refusal(worker, PeerObjectRefusal::address, client.address_text,
                             "not a peer's address");
    co_return;
  }
  // The handshake is bounded like the peer listener's head: a peer that
  // cannot finish it in time is not one this node waits for.
  client.stream.expires_after(settings->config.cluster.peer_head_timeout_ms);
  auto [ec] =
      co_await client.stream.tls()->async_handshake(use_nothrow);
  if (ec) {
    note_peer_object_refusal(worker, PeerObjectRefusal::handshake, client.address_text,
                             "TLS handshake: " + ec.message());
    co_return;
  }
  worker.stats.peer_object_connections.fetch_add(1, std::memory_order_relaxed);
  co_await serve_requests(worker, cache, client, true);
}

}  // namespace sumcache::daemon
