#pragma once
// The purges this node made that a peer may not have applied yet (docs/peers.md,
// "Cluster-wide invalidation"). While a key's tombstone stands, a miss on it
// goes to the origin and never to a peer, which may still hold the purged copy.
// A tombstone stands until every peer has acknowledged its purge's sequence;
// the table is bounded, and beyond its capacity the oldest is dropped (a
// degraded path the caller counts and logs). Pure; the caller locks.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace sumcache::daemon {

inline constexpr std::size_t kDefaultMaxTombstones = 65536;
// Tag and prefix purges' tombstones: each miss walks the prefix table.
inline constexpr std::size_t kMaxPatternTombstones = 1024;

class TombstoneTable {
 public:
  explicit TombstoneTable(std::size_t capacity = kDefaultMaxTombstones);

  // Records the purge of `key` with its sequence (sequences increase); a key
  // purged again keeps the later one. Returns true when the oldest tombstone
  // was dropped to stay within the capacity.
  bool add(std::string key, std::uint64_t sequence);
  bool covers(std::string_view key) const;
  // Whether a recorded value is a prefix of `key` (a table of prefix purges):
  // a walk of the table, so such a table is kept small (kMaxPatternTombstones).
  bool covers_prefix_of(std::string_view key) const;
  // Drops every tombstone whose sequence is at most `sequence`; returns how many.
  std::size_t release_through(std::uint64_t sequence);

  std::size_t size() const { return by_key_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  std::size_t capacity_;
  std::map<std::string, std::uint64_t, std::less<>> by_key_;
  std::map<std::uint64_t, std::string> by_sequence_;  // oldest first
};

}  // namespace sumcache::daemon
