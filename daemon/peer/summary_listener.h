#pragma once
// The peer listener (cluster.peer_listen): peers POST summaries and
// invalidation batches to it and GET this node's full summary from it. One request per connection.
// What it checks, in order, before it reads a body byte (docs/peers.md, "What the peer listener
// accepts"): the source address and the connection cap on accept (at the cap, the oldest
// connection whose head is not verified yet makes room); the request head within
// peer_head_timeout_ms and its Sumcache-Channel-Auth (protocol/channel_auth.h), before any
// per-peer state is touched; then its gate decides from path, method, node id, length, the
// nonce (replays) and rate; then the message's fixed header (a summary's; an invalidation
// message, at most 263,264 bytes, is read whole and decoded). Only then is the body read, into a
// buffer of the checked length, holding the peer's one slot for its route: a newer verified
// request of that peer takes it over. Answers after a verified head are signed for it.

#include <array>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "daemon/log/log_limiter.h"
#include "daemon/log/logger.h"
#include "daemon/net/accept_loop.h"
#include "daemon/net/asio.h"
#include "daemon/net/cidr.h"
#include "daemon/peer/listener_refusals.h"
#include "daemon/peer/peer_http.h"
#include "daemon/peer/summary_admission.h"

namespace sumcache::daemon {

struct SummaryRequest {
  beast::http::verb method = beast::http::verb::get;
  std::string target;
  std::string from;  // the verified head's node: a configured peer's id (the gate checked)
  std::string if_none_match;
  std::string body;
  std::string remote;  // address text
};

struct SummaryResponse {
  unsigned status = 204;
  std::string etag;
  std::string content_type = "text/plain";
  std::string body;
};

// The listener's owner decides what it lets in; called on the io thread.
class SummaryGate {
 public:
  virtual ~SummaryGate() = default;
  // check_head with the named peer's limits, then the proof's nonce against
  // that peer's replay window, then (a summary POST) its rate. Called only
  // with a head whose Sumcache-Channel-Auth verified.
  virtual Verdict admit(const SummaryHead& head, const ChannelProof& proof, std::size_t& peer) = 0;
  virtual std::uint64_t max_filter_bits(std::size_t peer) const = 0;
  virtual std::uint64_t max_fingerprints(std::size_t peer) const = 0;
  virtual SummaryResponse handle(const SummaryRequest& request) = 0;
};

// What the listener signs and verifies with: this node's id (the `to` a head
// must name) and the cluster secret.
struct ChannelKeys {
  std::string self;
  std::string secret;
};

struct SummaryListenerLimits {
  std::chrono::milliseconds head_timeout{1000};  // TLS handshake and request head
  std::chrono::milliseconds timeout{2000};       // the body, and writing the answer
  std::size_t max_connections = 8;
  std::optional<AccessList> sources;  // nullopt: any source address
};

class SummaryListener {
 public:
  // tls: null for plain HTTP; else the server context (certificate and key).
  SummaryListener(asio::any_io_executor executor, SummaryGate& gate, Logger& log,
                  SummaryListenerLimits limits, ChannelKeys keys,
                  asio::ssl::context* tls = nullptr);
  error_code listen(const tcp::endpoint& endpoint, std::string& failed_step);
  void set_sources(std::optional<AccessList> sources) { limits_.sources = std::move(sources); }
  void set_max_connections(std::size_t n) { limits_.max_connections = n; }
  void start();
  void stop();
  RefusalCounts refusals() const { return refusals_.snapshot(); }
  AcceptCounts accept_failures() const { return accept_failures_.snapshot(); }
  // Counts the refusal and logs it, one line per reason a second with the count held back.
  void refused(Refusal reason, const std::string& who, const std::string& why);

  // A connection being served (io thread only).
  struct Connection {
    std::string remote;     // address text, for the log line when it is closed
    bool verified = false;  // its head's Sumcache-Channel-Auth verified
    bool closed = false;    // evicted or taken over: ends without another word
    std::function<void()> close;
  };

 private:
  using Connections = std::list<Connection>;
  // A verified head's request: what its answer is signed for.
  struct Signer {
    std::string requester;
    std::string nonce;
  };
  void admit(tcp::socket socket);
  // At the cap: closes the oldest unverified connection; false when none is.
  bool evict_unverified(const std::string& remote);
  awaitable<void> serve(tcp::socket socket, std::string remote);
  template <class Stream>
  awaitable<void> serve_request(Stream& stream, const std::string& remote, Connection& self);
  template <class Stream>
  awaitable<void> receive_body(Stream& stream, beast::flat_buffer& buffer,
                               const std::string& remote, SummaryRequest& request,
                               std::uint64_t length, std::size_t peer, const Signer& signer);
  template <class Stream>
  awaitable<void> answer(Stream& stream, unsigned status, std::string body,
                         unsigned retry_after = 0, const Signer* signer = nullptr);
  // Sets the answer's Sumcache-Channel-Auth for the verified request.
  void sign(beast::http::response<beast::http::string_body>& res, const Signer& signer) const;

  asio::any_io_executor executor_;
  tcp::acceptor acceptor_;
  SummaryGate& gate_;
  Logger& log_;
  SummaryListenerLimits limits_;
  ChannelKeys keys_;
  asio::ssl::context* tls_;
  std::size_t active_ = 0;   // connections being served and not closed (io thread only)
  Connections connections_;  // oldest first
  // The connection reading a body of (peer, invalidations): one per peer and route.
  std::map<std::pair<std::size_t, bool>, Connection*> holders_;
  RefusalCounters refusals_;
  AcceptCounters accept_failures_;
  std::unique_ptr<AcceptSite> accept_site_;  // set by listen
  std::array<LogLimiter, kRefusalKinds> log_limiters_;
};

}  // namespace sumcache::daemon
