#include "protocol/invalidation_outbox.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace sumcache::protocol {

const char* to_string(AckOutcome outcome) {
  switch (outcome) {
    case AckOutcome::accepted:
      return "accepted";
    case AckOutcome::unknown_peer:
      return "unknown_peer";
    case AckOutcome::wrong_node:
      return "wrong_node";
    case AckOutcome::stale_epoch:
      return "stale_epoch";
    case AckOutcome::ahead:
      return "ahead";
  }
  return "unknown";
}

InvalidationOutbox::InvalidationOutbox(std::string node_id, std::uint64_t epoch,
                                       OutboxLimits limits)
    : node_id_(std::move(node_id)), epoch_(epoch), limits_(limits) {}

Result<std::uint64_t> InvalidationOutbox::add(Invalidation invalidation) {
  if (!valid_invalidation(invalidation) ||
      last_sequence() == std::numeric_limits<std::uint64_t>::max()) {
    return make_error_code(InvalidationErrc::invalid_message);
  }
  retained_bytes_ += invalidation_entry_bytes(invalidation);
  retained_.push_back(std::move(invalidation));
  while (retained_.size() > 1 &&
         (retained_.size() > limits_.max_entries || retained_bytes_ > limits_.max_bytes)) {
    evict_oldest();
  }
  return last_sequence();
}

void InvalidationOutbox::evict_oldest() {
  const Invalidation& oldest = retained_.front();
  missed_until_ms_ = std::max(missed_until_ms_, oldest.time_ms);
  retained_bytes_ -= invalidation_entry_bytes(oldest);
  retained_.pop_front();
  ++oldest_;
}

bool InvalidationOutbox::add_peer(std::string_view peer, std::uint64_t acked_through) {
  if (acked_through > last_sequence()) return false;
  acked_.insert_or_assign(std::string(peer), acked_through);
  return true;
}

void InvalidationOutbox::remove_peer(std::string_view peer) {
  if (const auto it = acked_.find(peer); it != acked_.end()) acked_.erase(it);
}

AckOutcome InvalidationOutbox::ack(const InvalidationAck& ack) {
  const auto it = acked_.find(ack.node_id);
  if (it == acked_.end()) return AckOutcome::unknown_peer;
  if (ack.acked_node != node_id_) return AckOutcome::wrong_node;
  if (ack.epoch != epoch_) return AckOutcome::stale_epoch;
  if (ack.acked_through > last_sequence()) return AckOutcome::ahead;
  // Lower than held is a resend request (docs/protocol.md): the next batch starts after it.
  it->second = ack.acked_through;
  return AckOutcome::accepted;
}

std::optional<InvalidationBatch> InvalidationOutbox::batch_for(std::string_view peer) const {
  const auto acked = acked_through(peer);
  if (!acked || *acked >= last_sequence()) return std::nullopt;
  InvalidationBatch batch;
  batch.node_id = node_id_;
  batch.epoch = epoch_;
  batch.first_seq = *acked + 1;
  if (batch.first_seq < oldest_) {
    batch.first_seq = oldest_;
    batch.missed_until_ms = missed_until_ms_;
  }
  std::size_t bytes = 0;
  for (std::size_t i = batch.first_seq - oldest_;
       i < retained_.size() && batch.entries.size() < kMaxInvalidationEntries; ++i) {
    bytes += invalidation_entry_bytes(retained_[i]);
    if (bytes > kMaxInvalidationPayloadBytes) break;  // one entry always fits: 11 + 8 KiB
    batch.entries.push_back(retained_[i]);
  }
  return batch;
}

bool InvalidationOutbox::has_peer(std::string_view peer) const {
  return acked_.find(peer) != acked_.end();
}

std::optional<std::uint64_t> InvalidationOutbox::acked_through(std::string_view peer) const {
  const auto it = acked_.find(peer);
  if (it == acked_.end()) return std::nullopt;
  return it->second;
}

std::uint64_t InvalidationOutbox::pending(std::string_view peer) const {
  const auto acked = acked_through(peer);
  return acked ? last_sequence() - *acked : 0;
}

bool InvalidationOutbox::missed(std::string_view peer) const {
  const auto acked = acked_through(peer);
  return acked && *acked + 1 < oldest_;
}

std::uint64_t InvalidationOutbox::acked_by_all() const {
  std::uint64_t through = last_sequence();
  for (const auto& [peer, acked] : acked_) through = std::min(through, acked);
  return through;
}

}  // namespace sumcache::protocol
