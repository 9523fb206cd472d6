#pragma once
// A peer's summary as the receiving node holds it, advanced by the full and
// delta messages that peer sends (rules: docs/protocol.md, "Receiver state").

#include <cassert>
#include <cstdint>
#include <optional>
#include <system_error>

#include "filters/bloom_filter.h"
#include "filters/result.h"
#include "protocol/summary_message.h"

namespace sumcache::protocol {

class PeerSummary {
 public:
  // Any kind with an epoch below the one held: stale_epoch, nothing changes
  // (the held epoch never decreases). full: replaces everything when its
  // epoch is the one held or higher, except that an older full of the epoch
  // held is ignored. delta: needs a state with the same epoch, node,
  // params and hasher; base_sequence == sequence() applies it;
  // info.sequence <= sequence() is an old replay: ignored, returns {} and
  // changes nothing; any other base is a sequence_gap (the sender must send a
  // full one). An earlier base will not do: a bit that changed after it and
  // changed back is in no delta from it, yet differs in the state held. On
  // any error nothing changes.
  std::error_code apply(const SummaryMessage& message);

  // Fingerprint kinds: the set itself lives in a filters::FingerprintDirectory,
  // so the state here is the info alone. admit() says what apply() would do,
  // changing nothing: true: apply the message to the directory, then
  // commit() it; false: an old replay, ignore it; or the error apply() would
  // return, by the same rules (a fingerprint delta on a Bloom state, or the
  // reverse, is params_mismatch).
  // The result's operator bool is "no error"; *result is the verdict. A
  // fingerprint delta also needs its base size (entries + removed - added)
  // to be the size held, else sequence_gap: it was computed from another set.
  // apply() of a fingerprint message is admit() then commit(), for a holder
  // without a directory.
  Result<bool> admit(const SummaryMessage& message) const;
  void commit(const SummaryMessage& message);  // requires admit(message) == true
  bool holds_fingerprints() const { return fingerprints_; }

  bool has_state() const { return bits_.has_value() || fingerprints_; }
  std::uint64_t epoch() const { return info_.epoch; }
  std::uint64_t sequence() const { return info_.sequence; }
  std::uint64_t entries() const { return info_.entries; }
  const SummaryInfo& info() const { return info_; }
  // Requires has_state() && !holds_fingerprints().
  const filters::BloomFilter& bits() const {
    assert(bits_.has_value());
    return *bits_;
  }

 private:
  Result<bool> admit_full(const SummaryMessage& message) const;
  Result<bool> admit_delta(const SummaryMessage& message) const;

  SummaryInfo info_;
  std::optional<filters::BloomFilter> bits_;  // a Bloom state
  bool fingerprints_ = false;                 // a fingerprint state: the info alone
};

}  // namespace sumcache::protocol
