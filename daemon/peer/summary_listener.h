#pragma once
// The peer listener (cluster.peer_listen): peers POST summaries to it and GET
// this node's full summary from it. Each connection carries one request at a
// time with read and write deadlines (TLS handshake included); a body over
// kMaxSummaryBytes is refused before it is read.

#include <functional>
#include <memory>
#include <string>

#include "daemon/net/asio.h"
#include "daemon/peer/peer_http.h"

namespace sumcache::daemon {

struct SummaryRequest {
  http::verb method = http::verb::get;
  std::string target;
  std::string from;  // X-Sumcache-Node, for logs only: the message names its sender
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

using SummaryHandler = std::function<SummaryResponse(const SummaryRequest&)>;

class SummaryListener {
 public:
  // tls: null for plain HTTP; else the server context (certificate and key).
  SummaryListener(asio::any_io_executor executor, SummaryHandler handler,
                  std::chrono::milliseconds timeout, asio::ssl::context* tls = nullptr);
  error_code listen(const tcp::endpoint& endpoint, std::string& failed_step);
  void start();
  void stop();

 private:
  awaitable<void> accept_loop();
  awaitable<void> serve(tcp::socket socket);
  template <class Stream>
  awaitable<void> serve_requests(Stream& stream, const std::string& remote);

  asio::any_io_executor executor_;
  tcp::acceptor acceptor_;
  SummaryHandler handler_;
  std::chrono::milliseconds timeout_;
  asio::ssl::context* tls_;
};

}  // namespace sumcache::daemon
