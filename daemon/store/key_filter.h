#pragma once
// The store's counting Bloom filter behind its own mutex (touched on insert
// and eviction, never on lookups). It counts each primary key in the store
// once: the Store adds a key with its first variant and removes it with its
// last, always by the object's stored hash.

#include <cstdint>
#include <functional>
#include <mutex>
#include <string_view>
#include <vector>

#include "daemon/store/store_options.h"
#include "filters/bit_change.h"
#include "filters/bloom_filter.h"
#include "filters/counting_bloom_filter.h"
#include "filters/result.h"

namespace sumcache::daemon {

class KeyFilter {
 public:
  KeyFilter(filters::CountingBloomFilter filter, std::function<void(std::string_view)> log)
      : filter_(std::move(filter)), log_(std::move(log)) {}

  void add(const filters::Hash128& key);
  // A refusal means the store removed a key it never added: a bug. It is
  // counted (refused_removes) and logged, and the filter stays as it was.
  void remove(const filters::Hash128& key);

  filters::BloomFilter snapshot() const;
  filters::BloomFilter snapshot_and_mark();
  // change_log_overflow (before the first mark, or past the log's cap) means:
  // publish snapshot_and_mark() in full.
  Result<std::vector<std::uint64_t>> take_changes();
  // take_changes() with each position's value now ("bit i is now v"), read
  // under the same lock, so the delta states exactly this moment's bits.
  Result<std::vector<filters::BitChange>> take_delta();
  // Keys added since the last mark: the new documents that Summary Cache's
  // update threshold counts (removals ride along in the same delta).
  std::uint64_t keys_added_since_mark() const;
  FilterStats stats() const;
  filters::CountingBloomFilter copy() const;

 private:
  mutable std::mutex mutex_;
  filters::CountingBloomFilter filter_;
  std::uint64_t entries_ = 0;
  std::uint64_t keys_added_ = 0;
  std::function<void(std::string_view)> log_;
};

}  // namespace sumcache::daemon
