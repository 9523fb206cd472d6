#include "daemon/peer/summary_admission.h"

#include <algorithm>

#include "daemon/peer/peer_http.h"
#include "filters/fingerprint.h"
#include "protocol/decode.h"
#include "protocol/invalidation_header.h"
#include "protocol/invalidation_message.h"
#include "protocol/message_bounds.h"
#include "protocol/node_id.h"
#include "protocol/wire_header.h"

namespace sumcache::daemon {
namespace {

Verdict refuse(unsigned status, Refusal reason, std::string text) {
  return {status, reason, std::move(text)};
}

std::uint64_t le_at(std::string_view bytes, std::size_t offset, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value |= std::uint64_t{static_cast<std::uint8_t>(bytes[offset + i])} << (8 * i);
  }
  return value;
}

}  // namespace

std::uint64_t peer_max_fingerprints(const config::Config& config) {
  if (config.cluster.peer_max_fingerprints != 0) return config.cluster.peer_max_fingerprints;
  return std::clamp<std::uint64_t>(4 * config::filter_expected_entries(config),
                                   std::uint64_t{1} << 20, std::uint64_t{1} << 26);
}

std::uint64_t fingerprint_payload_bound_for(bool full, std::uint64_t universe,
                                            std::uint64_t max_fingerprints,
                                            std::uint64_t max_changes) {
  if (full) return protocol::fingerprint_full_payload_bound(universe, max_fingerprints);
  // The set after a delta is held to the cap too: it adds at most that many.
  return protocol::fingerprint_delta_payload_bound(universe, max_fingerprints,
                                                   std::min(max_changes, max_fingerprints));
}

std::uint64_t summary_message_bound(std::uint64_t max_m, std::uint64_t max_fingerprints,
                                    std::size_t node_id_bytes) {
  const std::uint64_t changes = protocol::DecodeLimits{}.max_changes;
  return std::max(
      protocol::message_bound(max_m, changes, node_id_bytes),
      protocol::fingerprint_message_bound(filters::kMaxUniverse, max_fingerprints,
                                          std::min(changes, max_fingerprints), node_id_bytes));
}

const char* to_string(Refusal r) {
  switch (r) {
    case Refusal::address:
      return "address";
    case Refusal::connections:
      return "connections";
    case Refusal::head:
      return "head";
    case Refusal::route:
      return "route";
    case Refusal::node:
      return "node";
    case Refusal::length:
      return "length";
    case Refusal::too_large:
      return "too_large";
    case Refusal::rate:
      return "rate";
    case Refusal::header:
      return "header";
    case Refusal::auth:
      return "auth";
    case Refusal::replayed:
      return "replayed";
    case Refusal::evicted:
      return "evicted";
    case Refusal::taken_over:
      return "taken_over";
    case Refusal::stale_epoch:
      return "stale_epoch";
  }
  return "unknown";
}

std::string printable_id(std::string_view id) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  const std::size_t shown = std::min(id.size(), protocol::kMaxNodeIdBytes);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(id[i]);
    if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  if (shown < id.size()) out += "...";
  return out;
}

bool is_invalidations(const SummaryHead& head) { return head.target == kInvalidationsPath; }

Verdict check_head(const SummaryHead& head, const PeerLimits& limits) {
  const bool invalidations = is_invalidations(head);
  if (head.target != kSummaryPath && !invalidations) {
    return refuse(404, Refusal::route, "no such path");
  }
  if (invalidations && head.method != beast::http::verb::post)
    return refuse(405, Refusal::route, "POST");
  if (head.method != beast::http::verb::get && head.method != beast::http::verb::post) {
    return refuse(405, Refusal::route, "GET or POST");
  }
  if (!head.node || head.node->empty()) {
    return refuse(400, Refusal::node, "a node id is required");
  }
  const std::string id = printable_id(*head.node);
  if (!protocol::valid_node_id(*head.node)) {
    return refuse(400, Refusal::node, "node " + id + " is not a node id");
  }
  if (!limits.known)
    return refuse(403, Refusal::node, "node " + id + " is not a peer of this node");
  if (head.method == beast::http::verb::get) return {};
  // A summary's length is known before it is sent: no chunked framing here
  // (RFC 9110 §15.5.12, 411 Length Required).
  if (head.transfer_encoding || !head.content_length) {
    return refuse(411, Refusal::length, "Content-Length required, without Transfer-Encoding");
  }
  const std::uint64_t length = *head.content_length;
  if (invalidations) {
    if (length < protocol::kInvalidationHeaderBytes + head.node->size() + protocol::kTagBytes) {
      return refuse(
          400, Refusal::length,
          "Content-Length " + std::to_string(length) + " is shorter than any invalidation message");
    }
    if (length > protocol::kMaxInvalidationMessageBytes) {
      return refuse(413, Refusal::too_large,
                    "Content-Length " + std::to_string(length) +
                        " is over the largest invalidation message (" +
                        std::to_string(protocol::kMaxInvalidationMessageBytes) + " bytes)");
    }
    return {};
  }
  if (length < kFixedHeaderBytes + head.node->size() + protocol::kTagBytes) {
    return refuse(400, Refusal::length,
                  "Content-Length " + std::to_string(length) + " is shorter than any summary");
  }
  if (length > limits.max_message) {
    return refuse(413, Refusal::too_large,
                  "Content-Length " + std::to_string(length) +
                      " is over the largest summary node " + id + " can send (" +
                      std::to_string(limits.max_message) + " bytes; cluster.peer_max_filter_bits)");
  }
  return {};
}

Verdict check_fixed_header(std::string_view first, std::string_view node,
                           std::uint64_t content_length, std::uint64_t max_m,
                           std::uint64_t max_changes, FixedHeaderFacts& facts,
                           std::uint64_t max_fingerprints) {
  if (first.size() < kFixedHeaderBytes) return refuse(400, Refusal::header, "truncated message");
  if (le_at(first, 0, 4) != protocol::kMagic) {
    return refuse(400, Refusal::header, "bad magic: not a summary message");
  }
  const protocol::WireHeader h = protocol::read_header(first);
  if (h.min_version > protocol::kVersion || h.version < protocol::kMinVersion ||
      h.min_version > h.version) {
    return refuse(400, Refusal::header, "unsupported version " + std::to_string(h.version));
  }
  if (h.header_bytes < protocol::kHeaderBytes || h.header_bytes > protocol::kMaxHeaderBytes) {
    return refuse(400, Refusal::header, "bad header length " + std::to_string(h.header_bytes));
  }
  if (h.node_id_bytes != node.size()) {
    return refuse(400, Refusal::header, "the message names another node than the head");
  }
  using protocol::MessageKind;
  const auto kind = static_cast<MessageKind>(h.kind);
  const bool full = kind == MessageKind::full || kind == MessageKind::fingerprint_full;
  const bool fingerprints =
      kind == MessageKind::fingerprint_full || kind == MessageKind::fingerprint_delta;
  if (!full && !fingerprints && kind != MessageKind::delta)
    return refuse(400, Refusal::header, "unknown kind " + std::to_string(h.kind));
  if (h.m == 0) return refuse(400, Refusal::header, "m is 0");
  // A fingerprint summary's m is its universe, held as sorted values (not
  // bits): its size is bounded by its count, below.
  if (fingerprints && h.m > filters::kMaxUniverse) {
    return refuse(413, Refusal::too_large,
                  "universe of " + std::to_string(h.m) + " is over 2^40 (filters::kMaxUniverse)");
  }
  if (!fingerprints && h.m > max_m) {
    return refuse(413, Refusal::too_large,
                  "m of " + std::to_string(h.m) + " bits is over " + std::to_string(max_m) +
                      " (cluster.peer_max_filter_bits)");
  }
  // entries is the set's size after the message (a full's count): held here,
  // by the fingerprint directory's own bound, so what passes here is taken there.
  const filters::FingerprintCap cap{max_fingerprints};
  if (fingerprints && !cap.holds_entries(h.entries)) {
    return refuse(413, Refusal::too_large,
                  std::to_string(h.entries) + " fingerprints are over " +
                      std::to_string(max_fingerprints) + " (cluster.peer_max_fingerprints)");
  }
  if (fingerprints && !cap.holds_universe(h.m)) {
    return refuse(413, Refusal::too_large,
                  "universe of " + std::to_string(h.m) + " is over " +
                      std::to_string(cap.max_universe()) +
                      " (2^16 x cluster.peer_max_fingerprints)");
  }
  const std::uint64_t bound =
      fingerprints ? fingerprint_payload_bound_for(full, h.m, max_fingerprints, max_changes)
      : full       ? protocol::full_payload_bound(h.m)
                   : protocol::delta_payload_bound(h.m, max_changes);
  if (h.payload_bytes > bound) {
    return refuse(413, Refusal::too_large,
                  std::string(full ? "full" : "delta") + " payload of " +
                      std::to_string(h.payload_bytes) + " bytes is over " + std::to_string(bound) +
                      " for m = " + std::to_string(h.m));
  }
  const std::uint64_t total =
      h.header_bytes + h.node_id_bytes + h.payload_bytes + protocol::kTagBytes;
  if (total != content_length) {
    return refuse(400, Refusal::header,
                  "the message's sizes add up to " + std::to_string(total) +
                      " bytes, Content-Length says " + std::to_string(content_length));
  }
  facts.header_bytes = h.header_bytes;
  facts.node_id_bytes = h.node_id_bytes;
  return {};
}

Verdict check_message_node(std::string_view message_node, std::string_view head_node) {
  if (message_node == head_node) return {};
  return refuse(400, Refusal::header,
                "the message names node " + printable_id(message_node) + ", the head node " +
                    printable_id(head_node));
}

}  // namespace sumcache::daemon
