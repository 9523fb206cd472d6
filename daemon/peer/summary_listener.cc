#include "daemon/peer/summary_listener.h"

#include <boost/beast/ssl.hpp>

#include "daemon/net/address_bytes.h"
#include "daemon/net/listener.h"
#include "protocol/channel_auth.h"
#include "protocol/decode.h"
#include "protocol/replay_window.h"

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
                                 SummaryListenerLimits limits, ChannelKeys keys,
                                 asio::ssl::context* tls)
    : executor_(executor),
      acceptor_(executor),
      gate_(gate),
      log_(log),
      limits_(std::move(limits)),
      keys_(std::move(keys)),
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

bool SummaryListener::evict_unverified(const std::string& remote) {
  // Oldest first: the one that has had longest to send its head.
  for (Connection& c : connections_) {
    if (c.verified || c.closed) continue;
    c.closed = true;
    --active_;
    c.close();
    refused(Refusal::evicted, c.remote,
            "no verified head yet: closed to make room for " + remote +
                " (cluster.peer_max_connections)");
    return true;
  }
  return false;
}

void SummaryListener::admit(tcp::socket socket) {
  error_code rec;
  const auto address = socket.remote_endpoint(rec).address();
  if (rec) return;  // gone already
  std::string remote = address.to_string();
  // Closed at once, before a byte is read: not a peer, or no room. A
  // connection that has not proven itself yet gives way to a new one, so
  // that strangers holding connections cannot keep a real peer out.
  if (limits_.sources && !limits_.sources->allows(ip6_bytes(address))) {
    refused(Refusal::address, remote, "not a peer's address (cluster.peer_allow)");
    return;
  }
  if (active_ >= limits_.max_connections && !evict_unverified(remote)) {
    refused(Refusal::connections, remote,
            std::to_string(active_) + " connections open (cluster.peer_max_connections)");
    return;
  }
  ++active_;
  asio::co_spawn(executor_, serve(std::move(socket), std::move(remote)), asio::detached);
}

awaitable<void> SummaryListener::serve(tcp::socket socket, std::string remote) {
  connections_.push_back({remote, false, false, {}});
  struct Entry {
    SummaryListener& listener;
    Connections::iterator at;
    ~Entry() {
      if (!at->closed) --listener.active_;
      listener.connections_.erase(at);
    }
  } entry{*this, std::prev(connections_.end())};
  Connection& self = *entry.at;
  error_code ec;
  beast::tcp_stream stream(std::move(socket));
  // The handshake and the head share one short deadline, so that idle or
  // slow connections give their slot back soon.
  if (tls_ == nullptr) {
    self.close = [&stream] {
      error_code ignored;
      stream.socket().close(ignored);
    };
    stream.expires_after(limits_.head_timeout);
    co_await serve_request(stream, remote, self);
    stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    co_return;
  }
  beast::ssl_stream<beast::tcp_stream> secure(std::move(stream), *tls_);
  self.close = [&secure] {
    error_code ignored;
    beast::get_lowest_layer(secure).socket().close(ignored);
  };
  beast::get_lowest_layer(secure).expires_after(limits_.head_timeout);
  auto [hec] = co_await secure.async_handshake(asio::ssl::stream_base::server, use_nothrow);
  if (hec) co_return;  // not TLS, or a certificate the client refused: nothing to answer
  co_await serve_request(secure, remote, self);
}

void SummaryListener::sign(beast::http::response<beast::http::string_body>& res,
                           const Signer& signer) const {
  const protocol::ChannelAnswerAuth fields{keys_.self,       signer.requester,  signer.nonce,
                                           res.result_int(), res.body().size(), {}};
  const std::string value = protocol::sign_channel_answer(fields, keys_.secret);
  // Empty only when libcrypto fails: the sender then refuses the answer.
  if (!value.empty()) res.set(protocol::kChannelAuthHeader, value);
}

template <class Stream>
awaitable<void> SummaryListener::answer(Stream& stream, unsigned status, std::string body,
                                        unsigned retry_after, const Signer* signer) {
  beast::http::response<beast::http::string_body> res{static_cast<beast::http::status>(status), 11};
  res.set(beast::http::field::server, "sumcached");
  if (retry_after > 0) res.set(beast::http::field::retry_after, std::to_string(retry_after));
  res.set(beast::http::field::content_type, "text/plain");
  res.body() = std::move(body) + "\n";
  res.keep_alive(false);
  res.prepare_payload();
  if (signer != nullptr) sign(res, *signer);
  beast::get_lowest_layer(stream).expires_after(limits_.timeout);
  auto [ec, n] = co_await beast::http::async_write(stream, res, use_nothrow);
  if (!ec) co_await linger(stream, limits_.head_timeout);
}

template <class Stream>
awaitable<void> SummaryListener::serve_request(Stream& stream, const std::string& remote,
                                               Connection& self) {
  beast::flat_buffer buffer(kMaxHeadBytes);
  beast::http::request_parser<beast::http::empty_body> parser;
  parser.header_limit(kMaxHeadBytes);
  // Lengths are the gate's to judge, per peer: the parser's own limit is off.
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  auto [rec, n] = co_await beast::http::async_read_header(stream, buffer, parser, use_nothrow);
  if (self.closed) co_return;  // evicted to make room: nothing more to say
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
  const auto length = parser.content_length();
  // The head proves itself before anything per peer is looked at or taken.
  const auto auths = req.equal_range(protocol::kChannelAuthHeader);
  const std::string_view auth_value = std::distance(auths.first, auths.second) == 1
                                          ? std::string_view(auths.first->value())
                                          : std::string_view{};
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const std::string method(req.method_string());
  const protocol::ChannelRequestFacts facts{method, req.target(), keys_.self, length.value_or(0),
                                            now};
  auto proof = auth_value.empty()
                   ? Result<protocol::ChannelRequestAuth>(
                         make_error_code(protocol::ChannelAuthErrc::missing))
                   : protocol::verify_channel_request(auth_value, facts, keys_.secret);
  if (!proof) {
    const auto claimed = protocol::parse_channel_request(auth_value);
    const std::string who =
        remote + (claimed ? " (node " + printable_id(claimed->node) + ")" : std::string());
    refused(Refusal::auth, who, "401 " + proof.error().message());
    co_await answer(stream, 401, proof.error().message());
    co_return;
  }
  self.verified = true;
  SummaryHead head;
  head.method = req.method();
  head.target = req.target();
  head.node = proof->node;
  if (length) head.content_length = *length;
  head.transfer_encoding = req.count(beast::http::field::transfer_encoding) > 0;
  const Signer signer{std::string(proof->node), std::string(proof->nonce)};
  std::size_t peer = 0;
  if (Verdict v = gate_.admit(head, {proof->nonce, proof->time, now}, peer)) {
    refused(v.reason, remote + " (node " + printable_id(*head.node) + ")",
            std::to_string(v.status) + " " + v.text);
    // A replayed or forgotten nonce is not this request's to sign for.
    const bool fresh = v.reason != Refusal::replayed && v.reason != Refusal::auth;
    co_await answer(stream, v.status, v.text, v.retry_after, fresh ? &signer : nullptr);
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
    // One body per peer and route: a verified newer request of that peer
    // takes the slot from an older one still reading (a slow link, or a
    // sender that gave up on it and retried).
    const auto key = std::pair{peer, invalidations};
    if (Connection*& holder = holders_[key]; holder != nullptr && holder != &self) {
      holder->closed = true;
      --active_;
      holder->close();
      refused(Refusal::taken_over, remote + " (node " + printable_id(*head.node) + ")",
              "a newer verified request took over the body still being read");
    }
    holders_[key] = &self;
    struct Hold {
      std::map<std::pair<std::size_t, bool>, Connection*>& holders;
      std::pair<std::size_t, bool> key;
      Connection* self;
      ~Hold() {
        if (auto it = holders.find(key); it != holders.end() && it->second == self) {
          holders.erase(it);
        }
      }
    } hold{holders_, key, &self};
    beast::get_lowest_layer(stream).expires_after(limits_.timeout);
    if (invalidations) {
      // At most kMaxInvalidationMessageBytes (check_head): read whole, then decoded.
      std::string body(*length, '\0');
      if (auto ec = co_await read_exact(stream, buffer, body.data(), body.size())) co_return;
      request.body = std::move(body);
    } else {
      co_await receive_body(stream, buffer, remote, request, *length, peer, signer);
    }
    if (request.body.size() != *length) co_return;  // refused or cut short: answered or closed
    if (self.closed) co_return;
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
  sign(res, signer);
  beast::get_lowest_layer(stream).expires_after(limits_.timeout);
  co_await beast::http::async_write(stream, res, use_nothrow);
}

template <class Stream>
awaitable<void> SummaryListener::receive_body(Stream& stream, beast::flat_buffer& buffer,
                                              const std::string& remote, SummaryRequest& request,
                                              std::uint64_t length, std::size_t peer,
                                              const Signer& signer) {
  const std::string who = remote + " (node " + printable_id(request.from) + ")";
  // The fixed header first: a wrong magic or node costs 84 bytes, not the body.
  std::string prefix(kFixedHeaderBytes, '\0');
  if (auto ec = co_await read_exact(stream, buffer, prefix.data(), prefix.size())) co_return;
  FixedHeaderFacts facts;
  if (Verdict v = check_fixed_header(prefix, request.from, length, gate_.max_filter_bits(peer),
                                     protocol::DecodeLimits{}.max_changes, facts,
                                     gate_.max_fingerprints(peer))) {
    refused(v.reason, who, std::to_string(v.status) + " " + v.text);
    co_await answer(stream, v.status, v.text, 0, &signer);
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
    co_await answer(stream, v.status, v.text, 0, &signer);
    co_return;
  }
  std::string body = std::move(prefix);
  const std::size_t have = body.size();
  body.resize(length);  // checked against the peer's bound and the message's own sizes
  if (auto ec = co_await read_exact(stream, buffer, body.data() + have, length - have)) co_return;
  request.body = std::move(body);
}

}  // namespace sumcache::daemon
