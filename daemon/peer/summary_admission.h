#pragma once
// What the peer listener decides before it reads a body byte: from the
// request head, then from the message's fixed header (docs/peers.md, "What
// the peer listener accepts"). Pure functions; the listener does the I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.h"
#include "daemon/net/asio.h"
#include "daemon/peer/listener_refusals.h"

namespace sumcache::daemon {

// A status of 0 lets the request on; otherwise the answer, then close.
struct Verdict {
  unsigned status = 0;
  Refusal reason = Refusal::head;
  std::string text;          // the response body and the log line's reason
  unsigned retry_after = 0;  // seconds, for a 429 (RFC 9110 §10.2.3)
  explicit operator bool() const { return status != 0; }
};

struct SummaryHead {
  beast::http::verb method = beast::http::verb::get;
  std::string_view target;
  // The sender: the node= of its verified Sumcache-Channel-Auth (the one source of truth).
  std::optional<std::string_view> node;
  std::optional<std::uint64_t> content_length;
  bool transfer_encoding = false;  // any Transfer-Encoding field
};

// What the head's verified Sumcache-Channel-Auth proves (protocol/channel_auth.h):
// the gate checks the nonce against the sender's ReplayWindow.
struct ChannelProof {
  std::string_view nonce;
  std::int64_t time = 0;  // the header's t
  std::int64_t now = 0;   // this node's clock, Unix seconds
};

// What the listener knows of the node the head names.
struct PeerLimits {
  bool known = false;             // a configured peer
  std::uint64_t max_message = 0;  // protocol::message_bound for it
};

// Whether the head is for the invalidations route (POST only) rather than summaries.
bool is_invalidations(const SummaryHead& head);

// Path and method, then the node id, then (POST) the length: a summary's
// against `limits`, an invalidation message's against
// protocol::kMaxInvalidationMessageBytes.
Verdict check_head(const SummaryHead& head, const PeerLimits& limits);

// The id as a log line may show it: quoted, non-printable bytes as \xNN, cut
// at 64 bytes with "..." (an id is at most 64 bytes).
std::string printable_id(std::string_view id);

// cluster.peer_max_fingerprints, or when 0: 4 x this node's expected entries
// (peers usually share one filter config), at least 2^20, at most 2^26 (the
// fingerprint directory's slot cap).
std::uint64_t peer_max_fingerprints(const config::Config& config);

// The payload bound (protocol/message_bounds.h) of a fingerprint_full of at
// most max_fingerprints in `universe`, or of a fingerprint_delta leaving at
// most that many: it removes and adds at most min(max_changes,
// max_fingerprints) each.
std::uint64_t fingerprint_payload_bound_for(bool full, std::uint64_t universe,
                                            std::uint64_t max_fingerprints,
                                            std::uint64_t max_changes);
// The largest summary message of either kind a peer may send.
std::uint64_t summary_message_bound(std::uint64_t max_m, std::uint64_t max_fingerprints,
                                    std::size_t node_id_bytes);

// The bytes to read before check_fixed_header can decide: the v1 header.
inline constexpr std::size_t kFixedHeaderBytes = 84;

struct FixedHeaderFacts {
  std::size_t header_bytes = 0;  // where the node id starts
  std::size_t node_id_bytes = 0;
};

// The first kFixedHeaderBytes of the body: magic, versions, sizes against the
// declared length, kind, and m against max_m (a Bloom filter's) or
// filters::kMaxUniverse (a fingerprint set's universe), the payload against
// its kind's bound (a fingerprint set's: at most max_fingerprints). Fills
// `facts` when it passes.
Verdict check_fixed_header(std::string_view first, std::string_view node,
                           std::uint64_t content_length, std::uint64_t max_m,
                           std::uint64_t max_changes, FixedHeaderFacts& facts,
                           std::uint64_t max_fingerprints = std::uint64_t{1} << 26);
// The node id the message names (bytes header_bytes.. of the body) against the head's.
Verdict check_message_node(std::string_view message_node, std::string_view head_node);

}  // namespace sumcache::daemon
