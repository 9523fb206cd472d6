#pragma once
// The groups of one shard's variants (docs/store.md, "Variants"): a key's
// variants are found by the hash of a variant string the caller builds for
// each group, so the index must tell which groups a key has without a walk
// of its variants. A group is the list of selecting fields a variant was
// keyed under (for the proxy: the Vary field names, RFC 9111 §4.1); it is
// opaque here. Group strings are interned (one copy per shard, counted by
// the entries that use it; id 0 is the empty group, never counted). A key
// whose variants all share one group needs nothing more: its first
// variant's group is the group. Only a key with variants in several groups
// (an origin that changed its Vary, or Vary: Origin on some responses) has
// a record of its groups and how many variants each holds. Without locking:
// the Store holds the shard's mutex around every call.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "filters/hashing.h"

namespace sumcache::daemon {

class VariantGroups {
 public:
  using GroupId = std::uint32_t;
  static constexpr GroupId kNoFields = 0;

  // The id of `fields`, counting one more entry that uses it.
  GroupId acquire(std::string_view fields);
  // One entry less uses `id`; the last one frees it.
  void release(GroupId id);
  std::string_view fields(GroupId id) const { return groups_[id].fields; }

  // A variant of group `group` joined key, whose other variants (`siblings`
  // of them, 0 for a new key) are all of `sibling_group` unless the key has
  // a record.
  void joined(const filters::Hash128& key, GroupId group, GroupId sibling_group,
              std::size_t siblings);
  // A variant of group `group` left key.
  void left(const filters::Hash128& key, GroupId group);
  // The key's record (each group with its count), or null when every variant
  // of the key is in one group.
  const std::vector<std::pair<GroupId, std::uint32_t>>* mixed(const filters::Hash128& key) const;

  std::size_t interned() const { return groups_.size() - free_.size() - 1; }
  std::size_t mixed_keys() const { return mixed_.size(); }

 private:
  struct Group {
    std::string fields;
    std::uint32_t entries = 0;
  };
  struct HashOfHash {
    std::size_t operator()(const filters::Hash128& h) const { return h.h1 ^ (h.h2 >> 1); }
  };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<Group> groups_{Group{}};  // index 0: kNoFields
  std::vector<GroupId> free_;
  std::unordered_map<std::string, GroupId, StringHash, std::equal_to<>> ids_;
  std::unordered_map<filters::Hash128, std::vector<std::pair<GroupId, std::uint32_t>>, HashOfHash>
      mixed_;
};

}  // namespace sumcache::daemon
