#pragma once
// The HTTP exchanges of the summary protocol between peer listeners: one
// request on a fresh connection, bounded by one deadline for the whole
// exchange (resolve, connect, TLS handshake, write, read). Paths: docs/peers.md.
// Each request is signed with a fresh nonce (Sumcache-Channel-Auth,
// protocol/channel_auth.h) and its answer verified against that nonce.

#include <boost/asio/ssl.hpp>
#include <chrono>
#include <string>

#include "daemon/net/asio.h"

namespace sumcache::daemon {

inline constexpr const char* kSummaryPath = "/sumcache/v1/summary";
inline constexpr const char* kSummaryType = "application/vnd.sumcache.summary";
// Invalidation messages (docs/protocol.md): a batch POSTed, its ack the answer.
inline constexpr const char* kInvalidationsPath = "/sumcache/v1/invalidations";
inline constexpr const char* kInvalidationsType = "application/octet-stream";
// The largest summary message a peer listener reads or a pull accepts.
inline constexpr std::size_t kMaxSummaryBytes = 64u << 20;
// The most a peer's answer to a push or an invalidation batch may hold: a
// status text or an ack (at most 44 + 64 + 32 bytes, docs/protocol.md).
inline constexpr std::size_t kMaxPeerReplyBytes = 4096;

struct PeerHttpRequest {
  beast::http::verb method = beast::http::verb::get;
  std::string host;
  std::uint16_t port = 0;
  std::string target = kSummaryPath;
  std::string body;                         // POST: an encoded summary or invalidation message
  std::string from;                         // this node's id: the head's node=
  std::string content_type = kSummaryType;  // POST
  // The answer's body is read no further: a pull raises it to the largest
  // summary that peer may send, so a hostile peer cannot make us buffer more.
  std::size_t max_reply_bytes = kMaxPeerReplyBytes;
  // The receiver's id (the head's to=), or protocol::kAnyReceiver for a GET to
  // a node whose id is not known yet; empty: the request is not signed.
  std::string to{};
  std::string secret{};  // the cluster secret
};

struct PeerHttpReply {
  unsigned status = 0;
  std::string body;
  // Whether the answer's Sumcache-Channel-Auth verified: signed by `to` (any
  // node for kAnyReceiver) for this request, its status and its body. An ack
  // or a summary is used only when it did; auth_error says why not.
  bool verified = false;
  std::error_code auth_error;
  std::chrono::microseconds rtt{0};  // request written to response read
};

// tls: null for plain HTTP; else the peer's certificate is verified for request.host.
awaitable<std::tuple<error_code, PeerHttpReply>> peer_http_exchange(
    asio::any_io_executor executor, PeerHttpRequest request, std::chrono::milliseconds timeout,
    asio::ssl::context* tls = nullptr);

}  // namespace sumcache::daemon
