#include "protocol/peer_summary.h"

#include "protocol/fingerprint_lists.h"
#include "protocol/protocol_error.h"

namespace sumcache::protocol {
namespace {

// The message's own content agrees with its info (a decoded message always
// does; a hand-built one may not).
bool well_formed_full(const SummaryMessage& message) {
  const SummaryInfo& info = message.info;
  if (message.kind == MessageKind::full) {
    return message.bits && message.bits->params() == info.params &&
           message.bits->hasher() == info.hasher;
  }
  const auto& set = message.fingerprints;
  return info.params.k == 1 && !filters::validate(info.params) && set.removed_ranks.empty() &&
         set.added.size() == info.entries && sorted_below(set.added, info.params.m, false);
}

bool well_formed_changes(const SummaryMessage& message) {
  const SummaryInfo& info = message.info;
  if (message.kind == MessageKind::fingerprint_delta) {
    return valid_fingerprint_delta(message.fingerprints, info.entries, info.params.m);
  }
  std::uint64_t next = 0;  // the lowest position the next change may name
  for (const auto& change : message.changes) {
    if (change.position < next || change.position >= info.params.m) return false;
    next = change.position + 1;
  }
  return true;
}

}  // namespace

std::error_code PeerSummary::apply(const SummaryMessage& message) {
  const auto verdict = admit(message);
  if (!verdict) return verdict.error();
  if (*verdict) commit(message);
  return {};
}

Result<bool> PeerSummary::admit(const SummaryMessage& message) const {
  // The held epoch never goes back: epochs rise with each start of the sender
  // (its clock in the high bits), so a lower one is a replay of a message from
  // an earlier run, or the sender's clock was set back. Either way it is
  // refused, of every kind, before anything else is looked at.
  if (has_state() && message.info.epoch < info_.epoch) {
    return make_error_code(ProtocolErrc::stale_epoch);
  }
  switch (message.kind) {
    case MessageKind::full:
    case MessageKind::fingerprint_full:
      return admit_full(message);
    case MessageKind::delta:
    case MessageKind::fingerprint_delta:
      return admit_delta(message);
  }
  return make_error_code(ProtocolErrc::bad_encoding);
}

Result<bool> PeerSummary::admit_full(const SummaryMessage& message) const {
  if (!well_formed_full(message)) return make_error_code(ProtocolErrc::bad_encoding);
  // Messages of one epoch carry rising sequences; an older full is a replay
  // or arrived late, and would roll the state back. A higher epoch is the
  // sender's restart (admit() has refused a lower one).
  const SummaryInfo& info = message.info;
  return !(has_state() && info.epoch == info_.epoch && info.sequence < info_.sequence);
}

Result<bool> PeerSummary::admit_delta(const SummaryMessage& message) const {
  const SummaryInfo& info = message.info;
  if (!has_state()) return make_error_code(ProtocolErrc::no_state);
  if (info.epoch != info_.epoch) return make_error_code(ProtocolErrc::epoch_mismatch);
  if (info.node_id != info_.node_id || info.params != info_.params || info.hasher != info_.hasher ||
      is_fingerprint_kind(message.kind) != fingerprints_) {
    return make_error_code(ProtocolErrc::params_mismatch);
  }
  if (info.sequence <= info_.sequence) return false;
  if (message.base_sequence != info_.sequence) return make_error_code(ProtocolErrc::sequence_gap);
  // Checked before anything changes, so a bad delta changes nothing.
  if (!well_formed_changes(message)) return make_error_code(ProtocolErrc::bad_encoding);
  if (fingerprints_) {
    const auto& delta = message.fingerprints;
    // well_formed_changes() has checked that the base size exists.
    if (*fingerprint_base_size(info.entries, delta.removed_ranks.size(), delta.added.size()) !=
        info_.entries) {
      return make_error_code(ProtocolErrc::sequence_gap);
    }
  }
  return true;
}

void PeerSummary::commit(const SummaryMessage& message) {
  switch (message.kind) {
    case MessageKind::full:
      bits_ = *message.bits;
      fingerprints_ = false;
      info_ = message.info;
      return;
    case MessageKind::fingerprint_full:
      bits_.reset();
      fingerprints_ = true;
      info_ = message.info;
      return;
    case MessageKind::delta:
      for (const auto& change : message.changes) bits_->set_bit(change.position, change.value);
      break;
    case MessageKind::fingerprint_delta:
      break;  // the set is the directory's
  }
  info_.sequence = message.info.sequence;
  info_.entries = message.info.entries;
}

}  // namespace sumcache::protocol
