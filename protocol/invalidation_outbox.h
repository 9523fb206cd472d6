#pragma once
// A node's own invalidations as it sends them to its peers: it numbers them,
// retains the latest (bounded by count and bytes), holds each peer's
// acknowledged sequence, and yields the next batch for a peer (rules:
// docs/protocol.md, "Invalidation messages", "Sender state"). Pure state: the
// caller sends what batch_for gives and feeds the answers to ack().

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "filters/result.h"
#include "protocol/invalidation_message.h"

namespace sumcache::protocol {

struct OutboxLimits {
  std::size_t max_entries = 4096;
  std::size_t max_bytes = 4u << 20;  // entries' wire bytes (invalidation_entry_bytes)
};

enum class AckOutcome : std::uint8_t {
  accepted,      // the peer's acked_through is now the ack's, lower or higher
  unknown_peer,  // the signer is not a peer of this outbox
  wrong_node,    // the ack acknowledges another node
  stale_epoch,   // the ack is for another epoch than this outbox's
  ahead,         // acked_through above the last sequence assigned
};

const char* to_string(AckOutcome outcome);

class InvalidationOutbox {
 public:
  // `node_id` and `epoch` are this node's, as its summaries carry them.
  InvalidationOutbox(std::string node_id, std::uint64_t epoch, OutboxLimits limits = {});

  // Numbers and retains `invalidation`; the oldest are evicted beyond the
  // limits, though never the newest. invalid_message (nothing retained) when
  // valid_invalidation refuses it or every sequence is used.
  Result<std::uint64_t> add(Invalidation invalidation);

  // Tracks `peer` from `acked_through`: 0 in a new epoch (everything), or
  // last_sequence() (from now on). False, and nothing changes, above last_sequence().
  bool add_peer(std::string_view peer, std::uint64_t acked_through);
  void remove_peer(std::string_view peer);

  // An ack from a peer (its signer, ack.node_id); changes nothing unless accepted.
  AckOutcome ack(const InvalidationAck& ack);

  // The next batch for `peer`, from its acked_through + 1, or from the oldest
  // retained with missed_until_ms when that is no longer retained; at most
  // kMaxInvalidationEntries and kMaxInvalidationPayloadBytes. None when the
  // peer is unknown or has acknowledged everything.
  std::optional<InvalidationBatch> batch_for(std::string_view peer) const;

  bool has_peer(std::string_view peer) const;
  std::optional<std::uint64_t> acked_through(std::string_view peer) const;
  // Sequences assigned and not acknowledged by `peer`, evicted ones included; 0 if unknown.
  std::uint64_t pending(std::string_view peer) const;
  // Whether `peer` has not acknowledged invalidations that are no longer retained.
  bool missed(std::string_view peer) const;
  // The sequence every peer has acknowledged (last_sequence() without peers).
  std::uint64_t acked_by_all() const;

  const std::string& node_id() const { return node_id_; }
  std::uint64_t epoch() const { return epoch_; }
  std::uint64_t last_sequence() const { return oldest_ + retained_.size() - 1; }
  std::uint64_t oldest_retained() const { return oldest_; }  // last_sequence() + 1 when none
  std::size_t retained_count() const { return retained_.size(); }
  std::size_t retained_bytes() const { return retained_bytes_; }
  // The latest purge time among evicted invalidations: what a missed batch carries.
  std::uint64_t missed_until_ms() const { return missed_until_ms_; }

 private:
  void evict_oldest();

  std::string node_id_;
  std::uint64_t epoch_;
  OutboxLimits limits_;
  std::deque<Invalidation> retained_;  // retained_[i] has sequence oldest_ + i
  std::uint64_t oldest_ = 1;
  std::size_t retained_bytes_ = 0;
  std::uint64_t missed_until_ms_ = 0;
  std::map<std::string, std::uint64_t, std::less<>> acked_;  // peer -> acked_through
};

}  // namespace sumcache::protocol
