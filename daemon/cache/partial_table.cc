#include "daemon/cache/partial_table.h"

namespace sumcache::daemon {

PartialPtr PartialTable::find(const std::string& key) {
  const std::scoped_lock lock(mutex_);
  const auto it = slots_.find(key);
  if (it == slots_.end()) return nullptr;
  uses_.splice(uses_.begin(), uses_, it->second.use);
  return it->second.entry;
}

PartialTable::Added PartialTable::add(PartialEntry incoming, const ContentRange& range,
                                      std::string body) {
  Added out;
  if (body.size() != range.length() || body.size() > limits_.max_bytes) return out;
  remove_field(incoming.facts.fields, "Content-Range");
  remove_field(incoming.facts.fields, "Content-Length");
  incoming.complete = range.complete;
  incoming.pieces.clear();
  const std::scoped_lock lock(mutex_);
  const auto it = slots_.find(incoming.key);
  if (it != slots_.end()) {
    const PartialEntry& stored = *it->second.entry;
    // §3.4: combined only with the same strong validator; the newest fields
    // replace the stored ones, aside from Content-Range.
    if (stored.variant == incoming.variant && stored.complete == range.complete &&
        combinable(stored.facts.fields, incoming.facts.fields) &&
        stored.pieces.size() < limits_.max_pieces) {
      incoming.facts.fields = combined_fields(stored.facts.fields, incoming.facts.fields);
      incoming.pieces = stored.pieces;
      out.combined = true;
    }
    erase_locked(it);
  }
  add_piece(incoming.pieces, Piece{range.first, std::move(body)});
  auto entry = std::make_shared<const PartialEntry>(std::move(incoming));
  out.entry = entry;
  if (covers_all(entry->pieces, entry->complete)) {
    out.complete = true;
    return out;
  }
  const std::uint64_t size = stored_bytes(entry->pieces);
  while (bytes_ + size > limits_.max_bytes && !uses_.empty()) {
    erase_locked(slots_.find(uses_.back()));
  }
  uses_.push_front(entry->key);
  slots_.emplace(entry->key, Slot{entry, uses_.begin()});
  bytes_ += size;
  return out;
}

void PartialTable::remove(const std::string& key) {
  const std::scoped_lock lock(mutex_);
  if (slots_.empty()) return;
  const auto it = slots_.find(key);
  if (it != slots_.end()) erase_locked(it);
}

void PartialTable::remove_prefix(std::string_view prefix) {
  const std::scoped_lock lock(mutex_);
  for (auto it = slots_.begin(); it != slots_.end();) {
    auto next = std::next(it);
    if (it->first.starts_with(prefix)) erase_locked(it);
    it = next;
  }
}

void PartialTable::erase_locked(std::unordered_map<std::string, Slot>::iterator it) {
  bytes_ -= stored_bytes(it->second.entry->pieces);
  uses_.erase(it->second.use);
  slots_.erase(it);
}

std::size_t PartialTable::entries() const {
  const std::scoped_lock lock(mutex_);
  return slots_.size();
}

std::uint64_t PartialTable::bytes() const {
  const std::scoped_lock lock(mutex_);
  return bytes_;
}

}  // namespace sumcache::daemon
