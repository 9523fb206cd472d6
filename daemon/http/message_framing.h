#pragma once
// How an HTTP/1.1 message's body is delimited (RFC 9112 §6), decided from its
// version and header fields alone, for a request from a client and for a
// response from an upstream. Anything ambiguous is refused rather than
// guessed: two parsers that guess differently about where a body ends are how
// requests are smuggled (RFC 9112 §11.2) and caches poisoned.
//
// Pure and Boost-free, so a fuzz target can call these two functions directly.

#include <cstdint>
#include <string_view>
#include <system_error>
#include <variant>

#include "daemon/http/header_list.h"

namespace sumcache::daemon {

struct BodyFraming {
  enum class Kind {
    none,        // no body: the message ends with its head
    length,      // exactly `length` octets (Content-Length)
    chunked,     // the chunked coding (RFC 9112 §7.1)
    until_close  // a response read until the connection closes (RFC 9112 §6.3
                 // items 4 and 8: no framing field, or a last coding not chunked)
  };
  Kind kind = Kind::none;
  std::uint64_t length = 0;  // for Kind::length
  friend bool operator==(const BodyFraming&, const BodyFraming&) = default;
};

enum class FramingErrc {
  ok = 0,
  unsupported_version,                   // major version other than 1
  transfer_encoding_in_http10,           // RFC 9112 §6.1: faulty framing
  empty_transfer_encoding,               // a Transfer-Encoding line with no coding
  invalid_transfer_encoding,             // not a list of transfer-codings (RFC 9112 §6.1)
  chunked_repeated,                      // chunked applied twice (RFC 9112 §6.1)
  chunked_not_final,                     // RFC 9112 §6.3 item 4
  unsupported_transfer_coding,           // a coding other than chunked: we decode only chunked
  transfer_encoding_and_content_length,  // RFC 9112 §6.1, §6.3 item 3
  invalid_content_length,                // not 1*DIGIT, or too large (RFC 9110 §8.6)
  multiple_content_length,               // several lines or a list (RFC 9112 §6.3 item 5)
  differing_content_length,              // a response's several lengths disagree
  missing_host,                          // HTTP/1.1 request without Host (RFC 9112 §3.2)
  multiple_host,                         // more than one Host line (RFC 9112 §3.2)
  invalid_host,                          // a Host value that is not uri-host [":" port]
  line_too_long,                         // a chunk line or trailer past upstream_read_bound
  too_many_interim,                      // more 1xx responses than kMaxInterimResponses
};

// 1xx responses relayed before a final one (RFC 9110 §15.2). Each restarts the
// wait for the first byte, so without a bound an origin that sends 103s
// without end would hold the exchange forever.
inline constexpr int kMaxInterimResponses = 16;

const std::error_category& framing_category() noexcept;

// The most bytes an upstream response may have waiting in the proxy's read
// buffer. The parser keeps a head, a chunk line (chunk-size and extensions)
// and the trailer section whole in the buffer until their CRLF (RFC 9112
// §7.1), so an origin that never ends one would grow it without end. A trailer
// section of max_header_bytes fits (the bound clients' heads have), with room
// on top for a chunk line and a read of up to 64 KiB, the most the parser and
// the response relay read at once. Past it: FramingErrc::line_too_long.
inline constexpr std::uint64_t kUpstreamReadSlack = 256 * 1024;
constexpr std::uint64_t upstream_read_bound(std::uint64_t max_header_bytes) {
  return max_header_bytes + kUpstreamReadSlack;
}

inline std::error_code make_error_code(FramingErrc e) noexcept {
  return {static_cast<int>(e), framing_category()};
}

// A message that must not be processed: the status to answer with (400, 501
// or 505 for a request; 502 for a response, which the proxy then neither
// relays nor stores) and why. The connection it came on must be closed: where
// the next message starts is unknown.
struct FramingRefusal {
  unsigned status = 0;
  FramingErrc reason = FramingErrc::ok;
  friend bool operator==(const FramingRefusal&, const FramingRefusal&) = default;
};

using FramingDecision = std::variant<BodyFraming, FramingRefusal>;

// `version` is major * 10 + minor (11 for HTTP/1.1). `fields` must hold at
// least every Transfer-Encoding, Content-Length and Host line, in order;
// others are ignored.
FramingDecision request_framing(unsigned version, const HeaderList& fields);

// `request_method` is the method of the request this responds to.
FramingDecision response_framing(unsigned version, unsigned status, std::string_view request_method,
                                 const HeaderList& fields);

// Whether the connection a message came on persists after it (RFC 9112
// §9.3): not when any Connection line lists "close" (close wins, whatever
// another line says); otherwise HTTP/1.1 persists, and HTTP/1.0 only when
// some Connection line lists "keep-alive" (RFC 9112 Appendix C.2.2).
bool connection_persists(unsigned version, const HeaderList& fields);

}  // namespace sumcache::daemon

template <>
struct std::is_error_code_enum<sumcache::daemon::FramingErrc> : std::true_type {};
