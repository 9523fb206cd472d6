#pragma once
// One fetch of a Squid peer's Cache Digest (docs/interop.md, "Squid as a peer
// of sumcache"), as Squid itself asks a peer for it (peer_digest.cc,
// peerDigestRequest): GET /squid-internal-periodic/store_digest in origin
// form with Host: HOST:PORT, Accept: application/cache-digest and
// Accept: text/html, conditional on the
// Last-Modified of the digest held (RFC 9110 §13.1.3). The body is read in
// two steps: its 128-byte header first, decoded and checked against the size
// limit, then exactly the mask it announces, allocated only then; a
// Content-Length beyond the limit is refused before any body byte is read.
// One deadline bounds the whole exchange (resolve, connect, write, read).

#include <chrono>
#include <cstdint>
#include <string>

#include "daemon/net/asio.h"
#include "protocol/squid_digest.h"

namespace sumcache::daemon {

enum class DigestFetchResult {
  ok,            // 200 with a digest that passed every check
  not_modified,  // 304: the digest held is still the Squid's
  refused,       // 200 with a damaged digest (why says how); nothing of it is kept
  error,         // no usable answer: network, timeout, another status
};

struct SquidDigestRequest {
  std::string host;
  std::uint16_t port = 0;
  std::string if_modified_since;  // the held digest's Last-Modified; empty: unconditional
  std::uint32_t max_mask_bytes = 0;
};

struct SquidDigestFetch {
  DigestFetchResult result = DigestFetchResult::error;
  std::string why;  // refused and error
  unsigned status = 0;
  std::string last_modified;  // the answer's fields, as sent
  std::string expires;
  std::string date;
  protocol::SquidDigest digest;  // ok
  std::uint64_t body_bytes = 0;  // read of the body
  std::chrono::microseconds rtt{0};
};

// "http://HOST:PORT/squid-internal-periodic/store_digest", an IPv6 literal in brackets.
std::string squid_digest_url(const std::string& host, std::uint16_t port);

awaitable<SquidDigestFetch> fetch_squid_digest(asio::any_io_executor executor,
                                               SquidDigestRequest request,
                                               std::chrono::milliseconds timeout);

}  // namespace sumcache::daemon
