#pragma once
// The peer listener (cluster.peer_listen): peers POST summaries and
// invalidation batches to it and GET this node's full summary from it. One request per connection.
// What it checks, in order, before it reads a body byte (docs/peers.md, "What the peer listener
// accepts"): the source address and the connection cap on accept; the request head within
// peer_head_timeout_ms (its gate decides from path, method, node id, length and rate); then the
// message's fixed header (a summary's; an invalidation message, at most 263,264 bytes, is read
// whole and decoded). Only then is the body read, into a buffer of the checked length.

#include <array>
#include <functional>
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
  std::string from;  // X-Sumcache-Node: a configured peer's id (the gate checked)
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
  // check_head with the named peer's limits, then (POST) its rate and whether
  // a body of it for the same route is being read already. A POST let on
  // holds `peer` until body_done(peer, is_invalidations(head)).
  virtual Verdict admit(const SummaryHead& head, std::size_t& peer) = 0;
  virtual std::uint64_t max_filter_bits(std::size_t peer) const = 0;
  virtual std::uint64_t max_fingerprints(std::size_t peer) const = 0;
  virtual SummaryResponse handle(const SummaryRequest& request) = 0;
  virtual void body_done(std::size_t peer, bool invalidations) = 0;
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
                  SummaryListenerLimits limits, asio::ssl::context* tls = nullptr);
  error_code listen(const tcp::endpoint& endpoint, std::string& failed_step);
  void set_sources(std::optional<AccessList> sources) { limits_.sources = std::move(sources); }
  void set_max_connections(std::size_t n) { limits_.max_connections = n; }
  void start();
  void stop();
  RefusalCounts refusals() const { return refusals_.snapshot(); }
  AcceptCounts accept_failures() const { return accept_failures_.snapshot(); }
  // Counts the refusal and logs it, one line per reason a second with the count held back.
  void refused(Refusal reason, const std::string& who, const std::string& why);

 private:
  void admit(tcp::socket socket);
  awaitable<void> serve(tcp::socket socket, std::string remote);
  template <class Stream>
  awaitable<void> serve_request(Stream& stream, const std::string& remote);
  template <class Stream>
  awaitable<void> receive_body(Stream& stream, beast::flat_buffer& buffer,
                               const std::string& remote, SummaryRequest& request,
                               std::uint64_t length, std::size_t peer);
  template <class Stream>
  awaitable<void> answer(Stream& stream, unsigned status, std::string body,
                         unsigned retry_after = 0);

  asio::any_io_executor executor_;
  tcp::acceptor acceptor_;
  SummaryGate& gate_;
  Logger& log_;
  SummaryListenerLimits limits_;
  asio::ssl::context* tls_;
  std::size_t active_ = 0;  // connections being served (io thread only)
  RefusalCounters refusals_;
  AcceptCounters accept_failures_;
  std::unique_ptr<AcceptSite> accept_site_;  // set by listen
  std::array<LogLimiter, kRefusalKinds> log_limiters_;
};

}  // namespace sumcache::daemon
