#include "daemon/store/key_filter.h"

#include <cstdio>

#include "filters/fingerprint.h"

namespace sumcache::daemon {

KeyFilter::KeyFilter(Structure structure, std::function<void(std::string_view)> log)
    : log_(std::move(log)) {
  if (auto* table = std::get_if<filters::FingerprintTable>(&structure)) {
    table_.emplace(std::move(*table));
  } else {
    counting_.emplace(std::move(std::get<filters::CountingBloomFilter>(structure)));
  }
}

void KeyFilter::add(const filters::Hash128& key) {
  std::lock_guard lock(mutex_);
  if (table_) {
    table_->add(filters::fingerprint(key, table_->universe()));
    ++changes_since_mark_;
  } else {
    counting_->add(key);
  }
  ++entries_;
  ++keys_added_;
}

void KeyFilter::remove(const filters::Hash128& key) {
  std::error_code refused;
  {
    std::lock_guard lock(mutex_);
    if (table_) {
      refused = table_->remove(filters::fingerprint(key, table_->universe()));
      if (refused) {
        ++refused_removes_;
      } else {
        ++changes_since_mark_;
      }
    } else {
      refused = counting_->remove(key);
    }
    if (!refused) --entries_;
  }
  if (refused && log_) {
    char line[160];
    std::snprintf(line, sizeof line, "store: %s refused removing key hash %016llx%016llx: %s",
                  table_ ? "fingerprint table" : "counting filter",
                  static_cast<unsigned long long>(key.h1), static_cast<unsigned long long>(key.h2),
                  refused.message().c_str());
    log_(line);
  }
}

filters::BloomFilter KeyFilter::snapshot() const {
  std::lock_guard lock(mutex_);
  return counting_->bit_view();
}

filters::BloomFilter KeyFilter::snapshot_and_mark() {
  std::lock_guard lock(mutex_);
  counting_->mark();
  keys_added_ = 0;
  return counting_->bit_view();
}

Result<std::vector<std::uint64_t>> KeyFilter::take_changes() {
  std::lock_guard lock(mutex_);
  keys_added_ = 0;
  return counting_->take_changes();
}

Result<std::vector<filters::BitChange>> KeyFilter::take_delta() {
  std::lock_guard lock(mutex_);
  keys_added_ = 0;
  auto positions = counting_->take_changes();
  if (!positions) return positions.error();
  std::vector<filters::BitChange> changes;
  changes.reserve(positions->size());
  for (const std::uint64_t i : *positions) changes.push_back({i, counting_->counter(i) > 0});
  return changes;
}

filters::CountingBloomFilter KeyFilter::copy() const {
  std::lock_guard lock(mutex_);
  return *counting_;
}

FingerprintRound KeyFilter::take_fingerprint_round(bool want_sorted) {
  std::lock_guard lock(mutex_);
  keys_added_ = 0;
  changes_since_mark_ = 0;
  FingerprintRound round;
  round.delta = table_->take_delta();
  if (!round.delta) {
    // No delta from the last mark (none yet, or more changes than the log
    // holds): the receivers get this set in full, marked now.
    round.sorted = table_->sorted();
    table_->mark();
  } else if (want_sorted) {
    round.sorted = table_->sorted();
  }
  round.entries = table_->size();
  return round;
}

std::optional<std::vector<std::uint64_t>> KeyFilter::sorted_if_unchanged() const {
  std::lock_guard lock(mutex_);
  if (changes_since_mark_ != 0) return std::nullopt;
  return table_->sorted();
}

filters::FingerprintTable KeyFilter::copy_table() const {
  std::lock_guard lock(mutex_);
  return *table_;
}

std::uint64_t KeyFilter::keys_added_since_mark() const {
  std::lock_guard lock(mutex_);
  return table_ ? table_->adds_since_mark() : keys_added_;
}

FilterStats KeyFilter::stats() const {
  std::lock_guard lock(mutex_);
  if (table_) {
    FilterStats s;
    s.fingerprint = true;
    s.m = table_->universe();
    s.k = 1;
    s.entries = entries_;
    s.refused_removes = refused_removes_;
    s.pending_changes = changes_since_mark_;
    s.memory_bytes = table_->memory_bytes();
    return s;
  }
  FilterStats s;
  s.m = counting_->params().m;
  s.k = counting_->params().k;
  s.entries = entries_;
  s.nonzero = counting_->count_nonzero();
  s.saturated = counting_->saturated_counters();
  s.refused_removes = counting_->refused_removes();
  s.pending_changes = counting_->pending_changes();
  s.memory_bytes = (s.m + 1) / 2;  // 4-bit counters
  return s;
}

}  // namespace sumcache::daemon
