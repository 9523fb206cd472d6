#include "daemon/admin/admin_session.h"

#include <array>

#include "daemon/admin/admin_handlers.h"
#include "daemon/exchange/client_stream.h"
#include "daemon/net/address_bytes.h"
#include "daemon/session/tls_accept.h"

namespace sumcache::daemon {
namespace {

struct SessionCount {
  explicit SessionCount(std::uint32_t& n) : n_(n) { ++n_; }
  ~SessionCount() { --n_; }
  SessionCount(const SessionCount&) = delete;
  SessionCount& operator=(const SessionCount&) = delete;
  std::uint32_t& n_;
};

// A request that could not be read: the status to say so with, or 0 when the
// client went away or timed out (nothing to answer).
unsigned read_failure_status(error_code ec) {
  if (ec == beast::http::error::body_limit) return 413;
  if (ec == beast::http::error::header_limit) return 431;
  if (ec.category() == beast::http::make_error_code(beast::http::error::bad_method).category() &&
      ec != beast::http::error::end_of_stream && ec != beast::http::error::partial_message) {
    return 400;
  }
  return 0;
}

beast::http::response<beast::http::string_body> to_message(AdminResponse r, unsigned version,
                                                           bool keep_alive, bool head) {
  beast::http::response<beast::http::string_body> res{static_cast<beast::http::status>(r.status),
                                                      version};
  res.set(beast::http::field::server, "sumcached/" SUMCACHE_VERSION);
  res.set(beast::http::field::content_type, r.content_type);
  res.set(beast::http::field::cache_control, "no-store");
  for (auto& [name, value] : r.fields) res.set(name, value);
  res.keep_alive(keep_alive);
  res.body() = std::move(r.body);
  res.prepare_payload();
  if (head) res.body().clear();  // RFC 9110 §9.3.2: the GET's head, Content-Length included
  return res;
}

AdminRequest to_request(const beast::http::request<beast::http::string_body>& req,
                        const Ip6Bytes& client, const std::string& client_text) {
  return {std::string(req.method_string()),
          std::string(req.target()),
          std::string(req[beast::http::field::authorization]),
          std::string(req[beast::http::field::content_type]),
          req.body(),
          client,
          client_text};
}

// After an error that leaves the request body unread (413, 431, 400): stop
// sending, then read and discard what the client still sends, briefly.
// Closing with unread bytes would send a RST, which can destroy the error
// response before the client reads it (nginx's lingering_close).
awaitable<void> lingering_close(ClientStream& stream) {
  constexpr std::size_t kMaxDiscard = 1024 * 1024;
  if (co_await stream.close_tls(std::chrono::seconds(1))) co_return;
  error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  std::array<char, 16 * 1024> sink;
  std::size_t discarded = 0;
  stream.expires_after(std::chrono::seconds(1));
  while (!ec && discarded < kMaxDiscard) {
    auto [read_ec, n] = co_await stream.async_read_some(asio::buffer(sink), use_nothrow);
    ec = read_ec;
    discarded += n;
  }
}

}  // namespace

awaitable<void> serve_admin_client(AdminContext& context, tcp::socket socket) {
  SessionCount count(context.sessions);
  std::optional<ClientStream> opened;
  std::shared_ptr<const ServerTls> tls_hold;  // the certificates the handshake used
  if (context.tls != nullptr) {
    auto accepted = co_await accept_tls(context.shared, *context.tls, std::move(socket));
    if (!accepted) co_return;
    opened.emplace(std::move(accepted->stream));
    tls_hold = std::move(accepted->hold);
  } else {
    opened.emplace(std::move(socket));
  }
  ClientStream& stream = *opened;
  beast::flat_buffer buffer;
  error_code ec;
  const auto peer = stream.socket().remote_endpoint(ec);
  if (ec) co_return;
  const Ip6Bytes client = ip6_bytes(peer.address());
  const std::string client_text = peer.address().to_string();
  bool keep_alive = true;
  AdminWaiting waiting(stream.tcp_layer());
  while (keep_alive && !context.shared.draining.load(std::memory_order_relaxed)) {
    const auto settings = context.shared.settings.get();
    const auto& limits = settings->config.limits;
    context.waiting.push_back(waiting);
    if (buffer.size() == 0) {
      stream.expires_after(limits.client_idle_timeout_ms);
      auto [idle_ec, n] = co_await stream.async_read_some(buffer.prepare(4096), use_nothrow);
      if (idle_ec || n == 0) break;
      buffer.commit(n);
    }
    beast::http::request_parser<beast::http::string_body> parser;
    parser.header_limit(kAdminMaxHeaderBytes);
    parser.body_limit(kAdminMaxBodyBytes);
    stream.expires_after(limits.client_request_timeout_ms);
    auto [read_ec, read_n] = co_await beast::http::async_read(stream, buffer, parser, use_nothrow);
    waiting.unlink();
    AdminResponse response;
    unsigned version = 11;
    bool head = false;
    if (read_ec) {
      const unsigned status = read_failure_status(read_ec);
      if (status == 0) break;
      response = admin_error(status, read_ec.message());
      keep_alive = false;
    } else {
      const auto& req = parser.get();
      version = req.version() == 10 ? 10 : 11;
      head = req.method() == beast::http::verb::head;
      keep_alive = req.keep_alive();
      response = co_await handle_admin(context, to_request(req, client, client_text),
                                       stream.get_executor());
    }
    auto message = to_message(std::move(response), version, keep_alive, head);
    stream.expires_after(limits.client_request_timeout_ms);
    auto [write_ec, written] = co_await beast::http::async_write(stream, message, use_nothrow);
    if (write_ec) break;
    if (read_ec) {
      co_await lingering_close(stream);
      co_return;
    }
  }
  if (!co_await stream.close_tls(std::chrono::seconds(1))) {
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  }
}

}  // namespace sumcache::daemon
