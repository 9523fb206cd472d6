#include "daemon/store/tag_index.h"

namespace sumcache::daemon {

std::size_t TagIndex::add(EntryRef ref, std::vector<std::string> tags) {
  if (tags.empty()) return 0;
  for (const std::string& tag : tags) {
    const auto it = by_tag_.find(std::string_view(tag));
    if (it != by_tag_.end()) {
      it->second.insert(ref);
    } else {
      by_tag_.emplace(tag, std::unordered_set<EntryRef>{ref});
    }
  }
  const std::size_t added = tags.size();
  pairs_ += added;
  by_entry_.emplace(ref, std::move(tags));
  return added;
}

std::size_t TagIndex::remove(EntryRef ref) {
  const auto it = by_entry_.find(ref);
  if (it == by_entry_.end()) return 0;
  const std::size_t removed = it->second.size();
  for (const std::string& tag : it->second) {
    const auto t = by_tag_.find(std::string_view(tag));
    if (t == by_tag_.end()) continue;
    t->second.erase(ref);
    if (t->second.empty()) by_tag_.erase(t);
  }
  by_entry_.erase(it);
  pairs_ -= removed;
  return removed;
}

std::vector<EntryRef> TagIndex::entries(std::string_view tag, std::size_t limit) const {
  std::vector<EntryRef> out;
  const auto it = by_tag_.find(tag);
  if (it == by_tag_.end()) return out;
  for (auto ref = it->second.begin(); ref != it->second.end() && out.size() < limit; ++ref) {
    out.push_back(*ref);
  }
  return out;
}

}  // namespace sumcache::daemon
