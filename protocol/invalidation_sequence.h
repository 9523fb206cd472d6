#pragma once
// What a receiver holds of one sender's invalidations: the sender's epoch and
// the sequence through which every invalidation has been applied. It says
// what to do with each batch that sender sends, and what to acknowledge
// (rules: docs/protocol.md, "Invalidation messages", "Receiver state").

#include <cstddef>
#include <cstdint>

#include "protocol/invalidation_message.h"

namespace sumcache::protocol {

enum class SequenceVerdict : std::uint8_t {
  apply,         // every entry is new (or this is the first batch heard from the sender)
  apply_suffix,  // a resend overlapping what was applied: only the entries from `skip` are new
  duplicate,     // every entry was applied already
  gap,           // first_seq is beyond applied_through + 1: refused, the sender resends
  stale_epoch,   // an epoch below the one held: a replay (or a clock set back): refused,
                 // nothing applied, no ack; the held epoch never decreases
  new_epoch,     // a higher epoch: the sender restarted; state reset; what was stored
                 // before is unproven
  missed,        // the sender dropped invalidations never applied here: what was stored
                 // before batch.missed_until_ms is unproven
};

const char* to_string(SequenceVerdict verdict);

struct SequenceDecision {
  SequenceVerdict verdict = SequenceVerdict::apply;
  // Apply batch.entries[skip..]: 0 but for apply_suffix; every entry for
  // duplicate, gap and stale_epoch.
  std::size_t skip = 0;
  // What the ack to this batch carries, once those entries are applied. For
  // stale_epoch no ack is sent: it is the applied_through of the epoch held.
  std::uint64_t acked_through = 0;
};

class InvalidationSequence {
 public:
  // Decides on a batch of this sender (one that check_invalidations accepts, as
  // every decoded batch does) and advances the state at once: the caller
  // applies the entries it is told to before it sends the ack. An empty batch
  // changes nothing and is a duplicate.
  SequenceDecision accept(const InvalidationBatch& batch);

  bool has_state() const { return has_state_; }
  std::uint64_t epoch() const { return epoch_; }
  std::uint64_t applied_through() const { return applied_through_; }

 private:
  SequenceDecision start(const InvalidationBatch& batch, SequenceVerdict verdict);

  bool has_state_ = false;
  std::uint64_t epoch_ = 0;
  std::uint64_t applied_through_ = 0;
};

}  // namespace sumcache::protocol
