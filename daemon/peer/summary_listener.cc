#include "daemon/peer/summary_listener.h"

#include <boost/beast/ssl.hpp>

#include "daemon/net/address_bytes.h"
#include "daemon/net/listener.h"
#include "protocol/decode.h"

namespace sumcache::daemon {

namespace {

// A head is a request line and a few fields; a summary's are under 300 bytes.
constexpr std::size_t kMaxHeadBytes = 8192;

// Takes what the head's read left in `buffer` first, then reads the rest.
template <class Stream>
awaitable<error_code> read_exact(Stream& stream, beast::flat_buffer& buffer, char* out,
                                 std::size_t n) {
  const std::size_t held = std::min(n, buffer.size());
  asio::buffer_copy(asio::buffer(out, held), buffer.data());
  buffer.consume(held);
  if (held == n) co_return error_code{};
  auto [ec, read] =
      co_await asio::async_read(stream, asio::buffer(out + held, n - held), use_nothrow);
  co_return ec;
}

// After a refusal the client may still be sending what was not read: a close
// now would reset the connection and could destroy the answer in flight. So,
// as nginx's lingering close, stop sending and discard what arrives, into a
// fixed buffer, until the client closes, a deadline, or a cap (then reset).
awaitable<void> linger(beast::tcp_stream& stream, std::chrono::milliseconds limit) {
  constexpr std::size_t kMaxDiscard = 8u << 20;
  error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  stream.expires_after(limit);
  std::array<char, 16384> sink;
  for (std::size_t discarded = 0; discarded < kMaxDiscard;) {
    auto [rec, n] = co_await stream.async_read_some(asio::buffer(sink), use_nothrow);
    if (rec) break;
    discarded += n;
  }
}

template <class Stream>
awaitable<void> linger(Stream&, std::chrono::milliseconds) {
  co_return;  // TLS: the close_notify is not awaited either
}

}  // namespace

SummaryListener::SummaryListener(asio::any_io_executor executor, SummaryGate& gate, Logger& log,
                                 SummaryListenerLimits limits, asio::ssl::context* tls)
    : executor_(executor),
      acceptor_(executor),
      gate_(gate),
      log_(log),
      limits_(std::move(limits)),
      tls_(tls) {}

error_code SummaryListener::listen(const tcp::endpoint& endpoint, std::string& failed_step) {
  if (auto ec = open_acceptor(acceptor_, endpoint, false, failed_step)) return ec;
  accept_site_ = std::make_unique<AcceptSite>("peer listener " + endpoint_text(endpoint), log_,
                                              accept_failures_);
  return {};
}

void SummaryListener::start() {
  asio::co_spawn(executor_,
                 accept_connections(acceptor_, *accept_site_,
                                    [this](tcp::socket socket) { admit(std::move(socket)); }),
                 asio::detached);
}

void SummaryListener::stop() {
  error_code ignored;
  acceptor_.close(ignored);
}

void SummaryListener::refused(Refusal reason, const std::string& who, const std::string& why) {
  refusals_.add(reason);
  const auto held = log_limiters_[static_cast<std::size_t>(reason)].admit(LogLimiter::Clock::now());
  if (!held) return;
  std::string line = "peer listener: refused " + who + ": " + why;
  if (*held > 0)
    line += " (and " + std::to_string(*held) + " more " + to_string(reason) + " refusals)";
  log_.warn(line);
}

void SummaryListener::admit(tcp::socket socket) {
  error_code rec;
  const auto address = socket.remote_endpoint(rec).address();
  if (rec) return;  // gone already
  std::string remote = address.to_string();
  // Closed at once, before a byte is read: not a peer, or no room.
  if (limits_.sources && !limits_.sources->allows(ip6_bytes(address))) {
    refused(Refusal::address, remote, "not a peer's address (cluster.peer_allow)");
    return;
  }
  if (active_ >= limits_.max_connections) {
    refused(Refusal::connections, remote,
            std::to_string(active_) + " connections open (cluster.peer_max_connections)");
    return;
  }
  ++active_;
  asio::co_spawn(executor_, serve(std::move(socket), std::move(remote)), asio::detached);
}

awaitable<void> SummaryListener::serve(tcp::socket socket, std::string remote) {
  struct Slot {
    std::size_t& active;
    ~Slot() { --active; }
  } slot{active_};
  error_code ec;
  beast::tcp_stream stream(std::move(socket));
  // The handshake and the head share one short deadline, so that idle or
  // slow connections give their slot back soon.
  if (tls_ == nullptr) {
    stream.expires_after(limits_.head_timeout);
    co_await serve_request(stream, remote);
    stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    co_return;
  }
  beast::ssl_stream<beast::tcp_stream> secure(std::move(stream), *tls_);
  beast::get_lowest_layer(secure).expires_after(limits_.head_timeout);
  auto [hec] = co_await secure.async_handshake(asio::ssl::stream_base::server, use_nothrow);
  if (hec) co_return;  // not TLS, or a certificate the client refused: nothing to answer
  co_await serve_request(secure, remote);
}

template <class Stream>
awaitable<void> SummaryListener::answer(Stream& stream, unsigned status, std::string body,
                                        unsigned retry_after) {
  beast::http::response<beast::http::string_body> res{static_cast<beast::http::status>(status), 11};
  res.set(beast::http::field::server, "sumcached");
  if (retry_after > 0) res.set(beast::http::field::retry_after, std::to_string(retry_after));
  res.set(beast::http::field::content_type, "text/plain");
  res.body() = std::move(body) + "\n";
  res.keep_alive(false);
  res.prepare_payload();
  beast::get_lowest_layer(stream).expires_after(limits_.timeout);
  auto [ec, n] = co_await beast::http::async_write(stream, res, use_nothrow);
  if (!ec) co_await linger(stream, limits_.head_timeout);
}

template <class Stream>
awaitable<void> SummaryListener::serve_request(Stream& stream, const std::string& remote) {
  beast::flat_buffer buffer(kMaxHeadBytes);
  beast::http::request_parser<beast::http::empty_body> parser;
  parser.header_limit(kMaxHeadBytes);
  // Lengths are the gate's to judge, per peer: the parser's own limit is off.
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  auto [rec, n] = co_await beast::http::async_read_header(stream, buffer, parser, use_nothrow);
  if (rec == beast::error::timeout) {
    refused(Refusal::head, remote, "no request head within cluster.peer_head_timeout_ms");
    co_return;
  }
  if (rec == beast::http::error::end_of_stream || rec == asio::error::eof ||
      rec == asio::error::connection_reset) {
    co_return;  // closed without a request
  }
  if (rec) {
    refused(Refusal::head, remote, "malformed request head: " + rec.message());
    co_await answer(stream, 400, "malformed request head: " + rec.message());
    co_return;
  }
  const auto& req = parser.get();
  const auto node = req.find("X-Sumcache-Node");
  const auto length = parser.content_length();
  SummaryHead head;
  head.method = req.method();
  head.target = req.target();
  if (node != req.end()) head.node = node->value();
  if (length) head.content_length = *length;
  head.transfer_encoding = req.count(beast::http::field::transfer_encoding) > 0;
  std::size_t peer = 0;
  if (Verdict v = gate_.admit(head, peer)) {
    const std::string who =
        remote + (head.node ? " (node " + printable_id(*head.node) + ")" : std::string());
    refused(v.reason, who, std::to_string(v.status) + " " + v.text);
    co_await answer(stream, v.status, v.text, v.retry_after);
    co_return;
  }
  SummaryRequest request{req.method(),
                         std::string(req.target()),
                         std::string(*head.node),
                         std::string(req[beast::http::field::if_none_match]),
                         {},
                         remote};
  if (request.method == beast::http::verb::post) {
    const bool invalidations = is_invalidations(head);
    struct Hold {
      SummaryGate& gate;
      std::size_t peer;
      bool invalidations;
      ~Hold() { gate.body_done(peer, invalidations); }
    } hold{gate_, peer, invalidations};
    beast::get_lowest_layer(stream).expires_after(limits_.timeout);
    if (invalidations) {
      // At most kMaxInvalidationMessageBytes (check_head): read whole, then decoded.
      std::string body(*length, '\0');
      if (auto ec = co_await read_exact(stream, buffer, body.data(), body.size())) co_return;
      request.body = std::move(body);
    } else {
      co_await receive_body(stream, buffer, remote, request, *length, peer);
    }
    if (request.body.size() != *length) co_return;  // refused or cut short: answered or closed
  }
  SummaryResponse out = gate_.handle(request);
  beast::http::response<beast::http::string_body> res{static_cast<beast::http::status>(out.status),
                                                      11};
  res.set(beast::http::field::server, "sumcached");
  if (!out.etag.empty()) res.set(beast::http::field::etag, out.etag);
  if (!out.body.empty()) res.set(beast::http::field::content_type, out.content_type);
  res.body() = std::move(out.body);
  res.keep_alive(false);
  res.prepare_payload();
  beast::get_lowest_layer(stream).expires_after(limits_.timeout);
  co_await beast::http::async_write(stream, res, use_nothrow);
}

template <class Stream>
awaitable<void> SummaryListener::receive_body(Stream& stream, beast::flat_buffer& buffer,
                                              const std::string& remote, SummaryRequest& request,
                                              std::uint64_t length, std::size_t peer) {
  const std::string who = remote + " (node " + printable_id(request.from) + ")";
  // The fixed header first: a wrong magic or node costs 84 bytes, not the body.
  std::string prefix(kFixedHeaderBytes, '\0');
  if (auto ec = co_await read_exact(stream, buffer, prefix.data(), prefix.size())) co_return;
  FixedHeaderFacts facts;
  if (Verdict v = check_fixed_header(prefix, request.from, length, gate_.max_filter_bits(peer),
                                     protocol::DecodeLimits{}.max_changes, facts,
                                     gate_.max_fingerprints(peer))) {
    refused(v.reason, who, std::to_string(v.status) + " " + v.text);
    co_await answer(stream, v.status, v.text);
    co_return;
  }
  // The rest of the fixed header (a later version's fields) and the node id.
  const std::size_t named_at = facts.header_bytes;
  prefix.resize(named_at + facts.node_id_bytes);
  if (auto ec = co_await read_exact(stream, buffer, prefix.data() + kFixedHeaderBytes,
                                    prefix.size() - kFixedHeaderBytes)) {
    co_return;
  }
  if (Verdict v = check_message_node(std::string_view(prefix).substr(named_at), request.from)) {
    refused(v.reason, who, std::to_string(v.status) + " " + v.text);
    co_await answer(stream, v.status, v.text);
    co_return;
  }
  std::string body = std::move(prefix);
  const std::size_t have = body.size();
  body.resize(length);  // checked against the peer's bound and the message's own sizes
  if (auto ec = co_await read_exact(stream, buffer, body.data() + have, length - have)) co_return;
  request.body = std::move(body);
}

}  // namespace sumcache::daemon
