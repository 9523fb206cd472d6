#include "daemon/store/variant_groups.h"

#include <algorithm>

namespace sumcache::daemon {

VariantGroups::GroupId VariantGroups::acquire(std::string_view fields) {
  if (fields.empty()) return kNoFields;
  if (const auto it = ids_.find(fields); it != ids_.end()) {
    ++groups_[it->second].entries;
    return it->second;
  }
  GroupId id = 0;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<GroupId>(groups_.size());
    groups_.emplace_back();
  }
  groups_[id] = Group{std::string(fields), 1};
  ids_.emplace(groups_[id].fields, id);
  return id;
}

void VariantGroups::release(GroupId id) {
  if (id == kNoFields || --groups_[id].entries > 0) return;
  ids_.erase(groups_[id].fields);
  groups_[id] = Group{};
  free_.push_back(id);
}

void VariantGroups::joined(const filters::Hash128& key, GroupId group, GroupId sibling_group,
                           std::size_t siblings) {
  if (const auto it = mixed_.find(key); it != mixed_.end()) {
    auto& counts = it->second;
    const auto c = std::ranges::find(counts, group, &std::pair<GroupId, std::uint32_t>::first);
    if (c != counts.end()) {
      ++c->second;
    } else {
      counts.emplace_back(group, 1);
    }
    return;
  }
  if (siblings == 0 || group == sibling_group) return;
  mixed_.emplace(key, std::vector<std::pair<GroupId, std::uint32_t>>{
                          {sibling_group, static_cast<std::uint32_t>(siblings)}, {group, 1}});
}

void VariantGroups::left(const filters::Hash128& key, GroupId group) {
  const auto it = mixed_.find(key);
  if (it == mixed_.end()) return;
  auto& counts = it->second;
  const auto c = std::ranges::find(counts, group, &std::pair<GroupId, std::uint32_t>::first);
  if (c != counts.end() && --c->second == 0) counts.erase(c);
  if (counts.size() <= 1) mixed_.erase(it);
}

const std::vector<std::pair<VariantGroups::GroupId, std::uint32_t>>* VariantGroups::mixed(
    const filters::Hash128& key) const {
  const auto it = mixed_.find(key);
  return it == mixed_.end() ? nullptr : &it->second;
}

}  // namespace sumcache::daemon
