#include "daemon/peer/tombstone_table.h"

#include <algorithm>

namespace sumcache::daemon {

TombstoneTable::TombstoneTable(std::size_t capacity)
    : capacity_(std::max<std::size_t>(capacity, 1)) {}

bool TombstoneTable::add(std::string key, std::uint64_t sequence) {
  if (const auto it = by_key_.find(key); it != by_key_.end()) {
    if (it->second >= sequence) return false;
    by_sequence_.erase(it->second);
    it->second = sequence;
    by_sequence_.emplace(sequence, std::move(key));
    return false;
  }
  by_key_.emplace(key, sequence);
  by_sequence_.emplace(sequence, std::move(key));
  if (by_key_.size() <= capacity_) return false;
  const auto oldest = by_sequence_.begin();
  by_key_.erase(oldest->second);
  by_sequence_.erase(oldest);
  return true;
}

bool TombstoneTable::covers(std::string_view key) const { return by_key_.contains(key); }

bool TombstoneTable::covers_prefix_of(std::string_view key) const {
  return std::any_of(by_key_.begin(), by_key_.end(),
                     [&](const auto& entry) { return key.starts_with(entry.first); });
}

std::size_t TombstoneTable::release_through(std::uint64_t sequence) {
  std::size_t released = 0;
  while (!by_sequence_.empty() && by_sequence_.begin()->first <= sequence) {
    by_key_.erase(by_sequence_.begin()->second);
    by_sequence_.erase(by_sequence_.begin());
    ++released;
  }
  return released;
}

}  // namespace sumcache::daemon
