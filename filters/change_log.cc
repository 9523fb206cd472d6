#include "filters/change_log.h"

#include "filters/filter_error.h"

namespace sumcache::filters {

ChangeLog::ChangeLog(std::size_t initial_slots, std::size_t cap)
    : initial_slots_(initial_slots), cap_(cap), changes_(initial_slots) {}

// Past the cap a delta is no longer worth its memory: the log stops, gives
// its table back, and the next push is a full one. Checked before inserting,
// so the table never grows past what the cap needs.
void ChangeLog::apply_staged() const {
  const std::size_t staged = staged_;
  staged_ = 0;
  for (std::size_t i = 0; i < staged; ++i) {
    const std::uint64_t p = staged_positions_[i];
    if (changes_.size() == cap_ && !changes_.contains(p)) {
      logging_ = false;
      changes_ = ToggleSet(initial_slots_);
      return;
    }
    changes_.toggle(p);
  }
}

void ChangeLog::mark() {
  staged_ = 0;
  changes_.clear();
  logging_ = true;
}

Result<std::vector<std::uint64_t>> ChangeLog::changed_since_mark() const {
  if (!logging()) return make_error_code(FilterErrc::change_log_overflow);
  return changes_.sorted();
}

bool ChangeLog::logging() const {
  apply_staged();
  return logging_;
}

std::size_t ChangeLog::pending() const { return logging() ? changes_.size() : cap_ + 1; }

std::size_t ChangeLog::memory_bytes() const {
  apply_staged();
  return changes_.memory_bytes();
}

}  // namespace sumcache::filters
