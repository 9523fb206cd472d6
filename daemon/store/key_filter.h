#pragma once
// The store's summary structure behind its own mutex (touched on insert and
// eviction, never on lookups): a counting Bloom filter (filter.kind
// "counting-bloom") or a fingerprint table ("fingerprint", docs/peers.md,
// "Summary kinds"). It counts each primary key in the store once: the Store
// adds a key with its first variant and removes it with its last, always by
// the object's stored hash, so either structure stays exact under eviction.

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "daemon/store/store_options.h"
#include "filters/bit_change.h"
#include "filters/bloom_filter.h"
#include "filters/counting_bloom_filter.h"
#include "filters/fingerprint_table.h"
#include "filters/result.h"

namespace sumcache::daemon {

// One publication of a fingerprint summary, taken under one lock: the delta
// since the last one (change_log_overflow: none could be given, send `sorted`
// in full), the set as marked now when asked for or when there is no delta,
// and its size.
struct FingerprintRound {
  Result<filters::FingerprintDelta> delta{filters::FingerprintDelta{}};
  std::optional<std::vector<std::uint64_t>> sorted;
  std::uint64_t entries = 0;
};

class KeyFilter {
 public:
  using Structure = std::variant<filters::CountingBloomFilter, filters::FingerprintTable>;
  KeyFilter(Structure structure, std::function<void(std::string_view)> log);

  bool fingerprints() const { return table_.has_value(); }
  void add(const filters::Hash128& key);
  // A refusal means the store removed a key it never added: a bug. It is
  // counted (refused_removes) and logged, and the structure stays as it was.
  void remove(const filters::Hash128& key);

  // Counting Bloom filter only.
  filters::BloomFilter snapshot() const;
  filters::BloomFilter snapshot_and_mark();
  // change_log_overflow (before the first mark, or past the log's cap) means:
  // publish snapshot_and_mark() in full.
  Result<std::vector<std::uint64_t>> take_changes();
  // take_changes() with each position's value now ("bit i is now v"), read
  // under the same lock, so the delta states exactly this moment's bits.
  Result<std::vector<filters::BitChange>> take_delta();
  filters::CountingBloomFilter copy() const;

  // Fingerprint table only. The delta since the last round and a new mark;
  // with want_sorted (or when no delta can be given) also the set as marked.
  FingerprintRound take_fingerprint_round(bool want_sorted);
  // The set as marked by the last round, when nothing changed since (else
  // nullopt: only a new round can say what the set is at a mark).
  std::optional<std::vector<std::uint64_t>> sorted_if_unchanged() const;
  filters::FingerprintTable copy_table() const;

  // Keys added since the last mark: the new documents that Summary Cache's
  // update threshold counts (removals ride along in the same delta).
  std::uint64_t keys_added_since_mark() const;
  FilterStats stats() const;

 private:
  mutable std::mutex mutex_;
  std::optional<filters::CountingBloomFilter> counting_;
  std::optional<filters::FingerprintTable> table_;
  std::uint64_t entries_ = 0;
  std::uint64_t keys_added_ = 0;
  // Fingerprint table: removes it refused, and adds and removes since the last round.
  std::uint64_t refused_removes_ = 0;
  std::uint64_t changes_since_mark_ = 0;
  std::function<void(std::string_view)> log_;
};

}  // namespace sumcache::daemon
