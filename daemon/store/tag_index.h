#pragma once
// One shard's tags -> entries map, and each tagged entry's tags so that its
// removal finds them again. Without locking: the Store holds the shard's
// mutex around every call, as for IndexShard (docs/store.md, "Tag index").

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "daemon/store/index_shard.h"

namespace sumcache::daemon {

class TagIndex {
 public:
  // `tags` distinct; the entry must have none. Returns how many (tag, entry) pairs it added.
  std::size_t add(EntryRef ref, std::vector<std::string> tags);
  // Forgets the entry's tags; returns how many pairs went (0 for an untagged entry).
  std::size_t remove(EntryRef ref);
  // At most `limit` of the entries tagged `tag`, in no order.
  std::vector<EntryRef> entries(std::string_view tag, std::size_t limit) const;
  std::size_t pairs() const { return pairs_; }
  std::size_t tags() const { return by_tag_.size(); }

 private:
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::unordered_set<EntryRef>, TextHash, std::equal_to<>> by_tag_;
  std::unordered_map<EntryRef, std::vector<std::string>> by_entry_;
  std::size_t pairs_ = 0;
};

}  // namespace sumcache::daemon
