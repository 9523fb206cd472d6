#pragma once
// The counting filter's change log: the positions whose counter left or
// reached zero an odd number of times since mark(), which are exactly the bits
// of the bit view that differ from the view at mark(). Held in a ToggleSet of
// at most cap() positions; the transition that would pass the cap stops the
// log (docs/filters_counting.md).
//
// An update stages its transitions in a small buffer, written without
// branching on which counters flipped, and the buffer reaches the set, in
// order, when it is full or when anything reads the log. The set's branches
// then no longer wait on the counters' cache misses. Reading applies the
// staged transitions, so the const readers modify mutable members: a
// ChangeLog, like its filter, is not for concurrent use.

#include <array>
#include <cstdint>
#include <vector>

#include "filters/filter_params.h"
#include "filters/result.h"
#include "filters/toggle_set.h"

namespace sumcache::filters {

class ChangeLog {
 public:
  // Room for two updates at the largest k: 512 bytes inside the object.
  static constexpr std::size_t kStagedCap = 2 * kMaxHashes;

  ChangeLog(std::size_t initial_slots, std::size_t cap);

  // Room for `count <= kMaxHashes` transitions at the returned address; an
  // update writes its candidates there and commits how many it made, which
  // are kept only while logging() holds.
  std::uint64_t* stage(std::size_t count) {
    if (staged_ + count > kStagedCap) apply_staged();
    return staged_positions_.data() + staged_;
  }
  void commit(std::size_t count) { staged_ += logging_ ? count : 0; }

  // Starts a window: forgets every change, staged or not, and logs from here.
  void mark();
  // change_log_overflow when not logging(); otherwise the positions, ascending.
  Result<std::vector<std::uint64_t>> changed_since_mark() const;
  bool logging() const;
  // Exact while logging(); otherwise cap() + 1: more are pending.
  std::size_t pending() const;
  std::size_t cap() const { return cap_; }
  std::size_t memory_bytes() const;

 private:
  void apply_staged() const;

  std::size_t initial_slots_;
  std::size_t cap_;
  mutable ToggleSet changes_;
  mutable bool logging_ = false;  // set by mark(), cleared when changes_ would pass cap_
  mutable std::size_t staged_ = 0;
  mutable std::array<std::uint64_t, kStagedCap> staged_positions_;
};

}  // namespace sumcache::filters
