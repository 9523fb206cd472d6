#pragma once
// One HTTP/1.1 exchange with the admin endpoint over a fresh TCP connection
// ("Connection: close"), in TLS for an https:// address. Plain sockets (OpenSSL on
// top for TLS): non-blocking connect, handshake, send and receive, each wait a
// poll() bounded by one deadline for the whole exchange.

#include <chrono>
#include <string>

#include "filters/result.h"
#include "tools/sumcachectl/ctl_args.h"
#include "tools/sumcachectl/http_reply.h"

namespace sumcache::tools {

struct AdminRequest {
  std::string method = "GET";
  std::string target = "/";
  std::string token;  // sent as "Authorization: Bearer <token>" when not empty
  std::string content_type;
  std::string body;
};

// `cacert`: for https, the PEM file of CAs to verify the server with; empty: the system
// store. std::errc::timed_out when the deadline passes; socket errors as system codes;
// CtlErrc for TLS that fails or a response that is malformed, truncated or over its caps.
Result<HttpReply> admin_exchange(const AdminAddress& address, const std::string& cacert,
                                 const AdminRequest& request, std::chrono::milliseconds timeout);

}  // namespace sumcache::tools
