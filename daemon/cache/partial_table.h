#pragma once
// Stored partial responses (RFC 9111 §3.3): the 206s this node received for
// single-range requests, kept apart from the store until their ranges cover
// the whole representation. Then the combined response becomes a complete
// 200 through the normal fill (store_on_fill.h), and only then does it reach
// the disk tier, the Summary Cache filter and the peers. A partial entry is
// never offered to a peer, never written to disk, and a restart forgets it.
//
// Bounded: the bytes of every entry together (oldest use evicted first), and
// the continuous runs (pieces) one entry may hold. One entry per primary key:
// the newest 206 replaces an entry it cannot be combined with (§3.4: no
// shared strong validator, another variant, another complete length).
// Thread-safe; entries are immutable snapshots shared with the sessions that
// serve them.

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "daemon/cache/cache_fill.h"
#include "daemon/http/content_range.h"
#include "daemon/http/partial_content.h"

namespace sumcache::daemon {

struct PartialEntry {
  std::string key;
  std::string variant;  // secondary key (RFC 9111 §4.1) of the stored 206s
  ResponseFacts facts;  // the newest 206's, fields combined (§3.4), no Content-Range
  CachedMeta meta;      // freshness of the newest 206 (§4.2)
  std::uint64_t complete = 0;
  Pieces pieces;
};
using PartialPtr = std::shared_ptr<const PartialEntry>;

// A 206 whose head passed the checks, kept once its body has arrived.
struct PartialFill {
  std::string variant;
  ContentRange range;
};

struct PartialLimits {
  std::uint64_t max_bytes = 32 * 1024 * 1024;  // body bytes of every entry together
  std::size_t max_pieces = 16;                 // continuous runs per entry
};

class PartialTable {
 public:
  explicit PartialTable(PartialLimits limits = {}) : limits_(limits) {}

  // The entry stored under `key`, or null; counts as a use for eviction.
  PartialPtr find(const std::string& key);

  struct Added {
    PartialPtr entry;       // null: not kept (larger than the table)
    bool combined = false;  // joined stored ranges (§3.4)
    bool complete = false;  // covers the whole representation: removed from
                            // the table, for the caller to store as a 200
  };
  // A 206 whose body holds `range` exactly (its head passed
  // check_partial_response). `meta` is its freshness.
  Added add(PartialEntry incoming, const ContentRange& range, std::string body);

  // A complete response was stored, or the key purged: the partial one goes.
  void remove(const std::string& key);
  void remove_prefix(std::string_view prefix);

  const PartialLimits& limits() const { return limits_; }
  std::size_t entries() const;
  std::uint64_t bytes() const;

 private:
  struct Slot {
    PartialPtr entry;
    std::list<std::string>::iterator use;
  };
  void erase_locked(std::unordered_map<std::string, Slot>::iterator it);

  PartialLimits limits_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Slot> slots_;
  std::list<std::string> uses_;  // most recent first
  std::uint64_t bytes_ = 0;
};

}  // namespace sumcache::daemon
