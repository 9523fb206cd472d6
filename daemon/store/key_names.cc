#include "daemon/store/key_names.h"

namespace sumcache::daemon {

void KeyNames::add(const filters::Hash128& hash, std::string_view key) {
  if (by_hash_.contains(hash)) return;
  const auto [it, inserted] = by_name_.emplace(std::string(key), hash);
  // Another hash under the same text cannot happen: the hash is the text's.
  if (inserted) by_hash_.emplace(hash, it);
}

void KeyNames::remove(const filters::Hash128& hash) {
  const auto it = by_hash_.find(hash);
  if (it == by_hash_.end()) return;
  by_name_.erase(it->second);
  by_hash_.erase(it);
}

std::vector<filters::Hash128> KeyNames::with_prefix(std::string_view prefix,
                                                    std::size_t limit) const {
  std::vector<filters::Hash128> out;
  for (auto it = by_name_.lower_bound(prefix);
       it != by_name_.end() && out.size() < limit && it->first.starts_with(prefix); ++it) {
    out.push_back(it->second);
  }
  return out;
}

std::vector<std::string> KeyNames::after(std::string_view after, std::size_t limit) const {
  std::vector<std::string> out;
  for (auto it = by_name_.upper_bound(after); it != by_name_.end() && out.size() < limit; ++it) {
    out.push_back(it->first);
  }
  return out;
}

}  // namespace sumcache::daemon
