#pragma once
// Authentication of every request and answer on the peer channel (the peer
// listener's routes; docs/protocol.md, "Channel authentication"). A request
// carries one header,
//   Sumcache-Channel-Auth: node=<sender>; to=<receiver>; t=<unix seconds>;
//                          n=<32 lowercase hex>; len=<Content-Length>; mac=<64 lowercase hex>
// mac = HMAC-SHA256 keyed with the cluster secret (RFC 2104) over
//   "sumcache-channel-request-v1\n" method "\n" path "\n" node "\n" to "\n" t "\n" n "\n" len
// and its answer one,
//   Sumcache-Channel-Auth: node=<responder>; to=<requester>; n=<the request's nonce>;
//                          status=<3 digits>; len=<body length>; mac=<64 lowercase hex>
// mac over "sumcache-channel-answer-v1\n" node "\n" to "\n" n "\n" status "\n" len.
// The nonce (128 random bits) makes each head usable once (ReplayWindow) and
// binds an answer to the one request it answers. Pure: no sockets, no clock,
// no randomness (the caller passes t, now and the nonce).

#include <cstdint>
#include <string>
#include <string_view>

#include "filters/result.h"
#include "protocol/channel_auth_error.h"

namespace sumcache::protocol {

inline constexpr std::string_view kChannelAuthHeader = "Sumcache-Channel-Auth";
// A request signed before its receiver's id is known (a discovery probe's GET)
// names this receiver; only a GET may.
inline constexpr std::string_view kAnyReceiver = "*";
inline constexpr std::size_t kNonceHexBytes = 32;
// Two 64-byte ids, 12 + 20 digits, a nonce and a MAC with their names: 300
// bytes at most. Anything longer is refused before it is looked at.
inline constexpr std::size_t kMaxChannelAuthBytes = 320;

struct ChannelRequestAuth {
  std::string_view node;  // the sender
  std::string_view to;    // the receiver, or kAnyReceiver
  std::int64_t time = 0;  // Unix seconds
  std::string_view nonce;
  std::uint64_t length = 0;  // the request's Content-Length, 0 without a body
  std::string_view mac_hex;  // parsed only
};

struct ChannelAnswerAuth {
  std::string_view node;   // the responder
  std::string_view to;     // the requester
  std::string_view nonce;  // the request's
  unsigned status = 0;
  std::uint64_t length = 0;
  std::string_view mac_hex;  // parsed only
};

// Whether `nonce` is 32 lowercase hex digits.
bool valid_nonce(std::string_view nonce);

std::string channel_request_signed_bytes(std::string_view method, std::string_view path,
                                         const ChannelRequestAuth& fields);
std::string channel_answer_signed_bytes(const ChannelAnswerAuth& fields);

// The header value (mac_hex ignored); empty when a field breaks the grammar
// (an invalid id, a negative time, a bad nonce, to "*" on another method than
// GET) or libcrypto fails.
std::string sign_channel_request(std::string_view method, std::string_view path,
                                 const ChannelRequestAuth& fields, std::string_view secret);
std::string sign_channel_answer(const ChannelAnswerAuth& fields, std::string_view secret);

// Splits a value by the grammar above (fields in that order, "; " between
// them, numbers without leading zeros): ChannelAuthErrc::malformed on any
// deviation. The views point into `value`.
Result<ChannelRequestAuth> parse_channel_request(std::string_view value);
Result<ChannelAnswerAuth> parse_channel_answer(std::string_view value);

// What the receiver of a request knows of it.
struct ChannelRequestFacts {
  std::string_view method;
  std::string_view path;
  std::string_view self;  // this node's id
  std::uint64_t content_length = 0;
  std::int64_t now = 0;  // Unix seconds
};

// The parsed fields once the header parses, its MAC matches (constant time),
// it is signed for `self` (or kAnyReceiver on a GET), len is the
// Content-Length and t is within kPeerAuthWindowSeconds of now; otherwise the
// ChannelAuthErrc, checked in that order. Replays are ReplayWindow's to catch.
Result<ChannelRequestAuth> verify_channel_request(std::string_view value,
                                                  const ChannelRequestFacts& facts,
                                                  std::string_view secret);

// What the sender of a request expects of its answer.
struct ChannelAnswerFacts {
  std::string_view responder;  // the peer asked; empty: any node (a discovery probe)
  std::string_view self;       // this node's id
  std::string_view nonce;      // the request's
  unsigned status = 0;         // the answer's
  std::uint64_t length = 0;    // the answer's body
};

// The responder's id once the header parses and its MAC, receiver, nonce,
// status and length are those of this answer to this request.
Result<std::string> verify_channel_answer(std::string_view value, const ChannelAnswerFacts& facts,
                                          std::string_view secret);

}  // namespace sumcache::protocol
