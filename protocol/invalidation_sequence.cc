#include "protocol/invalidation_sequence.h"

namespace sumcache::protocol {

const char* to_string(SequenceVerdict verdict) {
  switch (verdict) {
    case SequenceVerdict::apply:
      return "apply";
    case SequenceVerdict::apply_suffix:
      return "apply_suffix";
    case SequenceVerdict::duplicate:
      return "duplicate";
    case SequenceVerdict::gap:
      return "gap";
    case SequenceVerdict::stale_epoch:
      return "stale_epoch";
    case SequenceVerdict::new_epoch:
      return "new_epoch";
    case SequenceVerdict::missed:
      return "missed";
  }
  return "unknown";
}

SequenceDecision InvalidationSequence::accept(const InvalidationBatch& batch) {
  const std::size_t count = batch.entries.size();
  if (count == 0) return {SequenceVerdict::duplicate, 0, applied_through_};
  // The first matching row of the table in docs/protocol.md decides. Epochs
  // rise with each start of the sender (its clock in the high bits): a lower
  // one is a batch of an earlier run, replayed. Taking it as a restart would
  // let each replay make this node revalidate everything it stored.
  if (has_state_ && batch.epoch < epoch_) {
    return {SequenceVerdict::stale_epoch, count, applied_through_};
  }
  if (has_state_ && batch.epoch > epoch_) return start(batch, SequenceVerdict::new_epoch);
  const std::uint64_t first = batch.first_seq;
  const std::uint64_t last = batch.last_seq();
  // first > applied_through_ + 1, written so that it cannot overflow.
  const bool beyond = first > applied_through_ && first - applied_through_ > 1;
  if (batch.missed_until_ms && (!has_state_ || beyond)) {
    return start(batch, SequenceVerdict::missed);
  }
  if (!has_state_) return start(batch, SequenceVerdict::apply);
  if (beyond) return {SequenceVerdict::gap, count, applied_through_};
  if (last <= applied_through_) return {SequenceVerdict::duplicate, count, applied_through_};
  const std::size_t skip = applied_through_ + 1 - first;  // first <= applied_through_ + 1 <= last
  applied_through_ = last;
  return {skip == 0 ? SequenceVerdict::apply : SequenceVerdict::apply_suffix, skip, last};
}

SequenceDecision InvalidationSequence::start(const InvalidationBatch& batch,
                                             SequenceVerdict verdict) {
  has_state_ = true;
  epoch_ = batch.epoch;
  applied_through_ = batch.last_seq();
  return {verdict, 0, applied_through_};
}

}  // namespace sumcache::protocol
