#include "daemon/store/key_filter.h"

#include <cstdio>

namespace sumcache::daemon {

void KeyFilter::add(const filters::Hash128& key) {
  std::lock_guard lock(mutex_);
  filter_.add(key);
  ++entries_;
  ++keys_added_;
}

void KeyFilter::remove(const filters::Hash128& key) {
  std::error_code refused;
  {
    std::lock_guard lock(mutex_);
    refused = filter_.remove(key);
    if (!refused) --entries_;
  }
  if (refused && log_) {
    char line[160];
    std::snprintf(line, sizeof line,
                  "store: counting filter refused removing key hash %016llx%016llx: %s",
                  static_cast<unsigned long long>(key.h1), static_cast<unsigned long long>(key.h2),
                  refused.message().c_str());
    log_(line);
  }
}

filters::BloomFilter KeyFilter::snapshot() const {
  std::lock_guard lock(mutex_);
  return filter_.bit_view();
}

filters::BloomFilter KeyFilter::snapshot_and_mark() {
  std::lock_guard lock(mutex_);
  filter_.mark();
  keys_added_ = 0;
  return filter_.bit_view();
}

Result<std::vector<std::uint64_t>> KeyFilter::take_changes() {
  std::lock_guard lock(mutex_);
  keys_added_ = 0;
  return filter_.take_changes();
}

Result<std::vector<filters::BitChange>> KeyFilter::take_delta() {
  std::lock_guard lock(mutex_);
  keys_added_ = 0;
  auto positions = filter_.take_changes();
  if (!positions) return positions.error();
  std::vector<filters::BitChange> changes;
  changes.reserve(positions->size());
  for (const std::uint64_t i : *positions) changes.push_back({i, filter_.counter(i) > 0});
  return changes;
}

std::uint64_t KeyFilter::keys_added_since_mark() const {
  std::lock_guard lock(mutex_);
  return keys_added_;
}

FilterStats KeyFilter::stats() const {
  std::lock_guard lock(mutex_);
  return {filter_.params().m,       filter_.params().k,           entries_,
          filter_.count_nonzero(),  filter_.saturated_counters(), filter_.refused_removes(),
          filter_.pending_changes()};
}

filters::CountingBloomFilter KeyFilter::copy() const {
  std::lock_guard lock(mutex_);
  return filter_;
}

}  // namespace sumcache::daemon
