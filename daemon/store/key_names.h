#pragma once
// One shard's primary keys in byte order, for prefix purges (docs/store.md,
// "Key names"): a purge of every key under "http://host/path/" is a range of
// this map, never a walk of the store. The index itself keeps only key
// hashes; this keeps each key's text once more. Without locking: the Store
// holds the shard's mutex around every call.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "filters/hashing.h"

namespace sumcache::daemon {

class KeyNames {
 public:
  // The key's first variant arrived; a key already named is left as it is.
  void add(const filters::Hash128& hash, std::string_view key);
  // The key's last variant left.
  void remove(const filters::Hash128& hash);
  // Hashes of every key that starts with `prefix`, at most `limit`.
  std::vector<filters::Hash128> with_prefix(std::string_view prefix, std::size_t limit) const;
  // The keys after `after` in byte order, at most `limit`: a walk of every
  // key in bounded steps ("" starts it; no key is empty).
  std::vector<std::string> after(std::string_view after, std::size_t limit) const;
  std::size_t size() const { return by_hash_.size(); }

 private:
  struct HashOfHash {
    std::size_t operator()(const filters::Hash128& h) const { return h.h1 ^ (h.h2 >> 1); }
  };
  using ByName = std::map<std::string, filters::Hash128, std::less<>>;
  ByName by_name_;
  std::unordered_map<filters::Hash128, ByName::iterator, HashOfHash> by_hash_;
};

}  // namespace sumcache::daemon
