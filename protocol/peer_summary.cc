#include "protocol/peer_summary.h"

#include "protocol/protocol_error.h"

namespace sumcache::protocol {

std::error_code PeerSummary::apply(const SummaryMessage& message) {
  return message.kind == MessageKind::full ? apply_full(message) : apply_delta(message);
}

std::error_code PeerSummary::apply_full(const SummaryMessage& message) {
  const SummaryInfo& info = message.info;
  if (!message.bits || message.bits->params() != info.params ||
      message.bits->hasher() != info.hasher) {
    return ProtocolErrc::bad_encoding;
  }
  // Messages of one epoch carry rising sequences; an older full is a replay
  // or arrived late, and would roll the state back.
  if (has_state() && info.epoch == info_.epoch && info.sequence < info_.sequence) return {};
  bits_ = *message.bits;
  info_ = info;
  return {};
}

std::error_code PeerSummary::apply_delta(const SummaryMessage& message) {
  const SummaryInfo& info = message.info;
  if (!has_state()) return ProtocolErrc::no_state;
  if (info.epoch != info_.epoch) return ProtocolErrc::epoch_mismatch;
  if (info.node_id != info_.node_id || info.params != info_.params || info.hasher != info_.hasher) {
    return ProtocolErrc::params_mismatch;
  }
  if (info.sequence <= info_.sequence) return {};
  if (message.base_sequence != info_.sequence) return ProtocolErrc::sequence_gap;
  std::uint64_t next = 0;  // checked before any bit changes, so a bad delta changes nothing
  for (const auto& change : message.changes) {
    if (change.position < next || change.position >= info_.params.m) {
      return ProtocolErrc::bad_encoding;
    }
    next = change.position + 1;
  }
  for (const auto& change : message.changes) bits_->set_bit(change.position, change.value);
  info_.sequence = info.sequence;
  info_.entries = info.entries;
  return {};
}

}  // namespace sumcache::protocol
