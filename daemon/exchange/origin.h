#pragma once
// Where a request goes upstream: scheme, host and port, named as one key for
// the connection pool.

#include <cstdint>
#include <string>

namespace sumcache::daemon {

struct Origin {
  bool tls = false;
  std::string host;  // name or IP literal, without brackets
  std::uint16_t port = 80;
  // A peer's object listener: its certificate is checked against cluster.tls,
  // not reverse.tls, so its connections never share a pool with an origin's.
  bool peer = false;

  std::string pool_key() const {
    return std::string(peer ? "peer+" : "") + (tls ? "https://" : "http://") + host + ":" +
           std::to_string(port);
  }
  // The Host header value: the port only when it is not the scheme's default.
  std::string host_header() const {
    const bool v6 = host.find(':') != std::string::npos;
    std::string h = v6 ? "[" + host + "]" : host;
    if (port != (tls ? 443 : 80)) h += ":" + std::to_string(port);
    return h;
  }
  friend bool operator==(const Origin&, const Origin&) = default;
};

}  // namespace sumcache::daemon
