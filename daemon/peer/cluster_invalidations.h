#pragma once
// This node's part in cluster-wide invalidation (docs/peers.md, "Cluster-wide
// invalidation"), shared by the threads that purge (workers, the admin
// listener) and the peer thread that sends and receives: its outbox of
// sequenced purges with each peer's acknowledgement (protocol/
// invalidation_outbox.h), the tombstones of purges not yet acknowledged by
// every peer, the unproven watermark set by what it received, and the counters
// /peers and /metrics show. Thread-safe: one mutex, held briefly.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/peer/purge_reach.h"
#include "daemon/peer/tombstone_table.h"
#include "protocol/invalidation_outbox.h"

namespace sumcache::daemon {

struct InvalidationPeerStatus {
  std::string id;
  std::uint64_t sent = 0;           // invalidations posted to it, resends included
  std::uint64_t acked_through = 0;  // of this node's current epoch
  std::uint64_t pending = 0;        // assigned and not acknowledged by it
};

struct InvalidationStats {
  std::uint64_t sent = 0;      // every peer's `sent`
  std::uint64_t received = 0;  // invalidations from peers applied here
  std::uint64_t acked = 0;     // acknowledged by peers, counted once per peer
  std::uint64_t pending = 0;   // every peer's `pending`
  std::uint64_t refused = 0;   // invalidation messages and acks refused (decode, node, outbox)
  std::uint64_t tombstones = 0;
  std::uint64_t tombstones_dropped = 0;  // dropped at the capacity before every peer acknowledged
  std::int64_t unproven_before_ms = 0;
  std::vector<InvalidationPeerStatus> peers;
};

struct AddedPurge {
  std::uint64_t sequence = 0;      // 0: refused (a value the format cannot carry)
  bool tombstone_dropped = false;  // the table was full: its oldest went
};

class ClusterInvalidations {
 public:
  // `epoch` is the one this node's summaries carry; every peer starts at 0.
  ClusterInvalidations(std::string node_id, std::uint64_t epoch, std::vector<std::string> peers,
                       std::size_t max_tombstones = kDefaultMaxTombstones);

  // Numbers the purge of `value` (a cache key, tag or key prefix, by `kind`)
  // at `time_ms` (wall clock, ms since the Unix epoch) for every peer, and
  // puts up its tombstone.
  AddedPurge add(protocol::InvalidationKind kind, std::string value, std::uint64_t time_ms);
  AddedPurge add_url(std::string key, std::uint64_t time_ms) {
    return add(protocol::InvalidationKind::url, std::move(key), time_ms);
  }
  // A standing URL purge of `key`, or a standing prefix purge of a prefix of it.
  bool tombstoned(std::string_view key) const;
  // A standing tag purge of one of `tags` (a peer's copy that carries it is refused).
  bool tag_tombstoned(const std::vector<std::string>& tags) const;
  // Whether any tag purge stands: a miss then reads the tags of a peer's copy.
  bool any_tag_tombstone() const;

  std::optional<protocol::InvalidationBatch> batch_for(std::string_view peer) const;
  // A peer's ack; on acceptance, tombstones every peer has acknowledged fall.
  protocol::AckOutcome ack(const protocol::InvalidationAck& ack);
  void count_sent(std::string_view peer, std::size_t invalidations);
  void count_received(std::size_t invalidations);
  void count_refused();

  // Raises the watermark (never lowers it): stored responses older are unproven.
  void raise_unproven_before(std::int64_t ms);
  std::int64_t unproven_before_ms() const {
    return unproven_before_ms_.load(std::memory_order_relaxed);
  }

  // Live membership: a new peer is sent every purge still retained (it was
  // away for all of them); a removed one is waited for no longer, so the
  // tombstones only it held back fall.
  void add_peer(const std::string& peer);
  void remove_peer(std::string_view peer);

  PurgeReach reach(std::uint64_t sequence) const;
  InvalidationStats stats() const;

 private:
  std::vector<std::string> peers_;
  mutable std::mutex mutex_;
  protocol::InvalidationOutbox outbox_;
  TombstoneTable tombstones_;         // URL purges
  TombstoneTable tag_tombstones_;     // tag purges: values are tags
  TombstoneTable prefix_tombstones_;  // prefix purges: values are key prefixes
  std::vector<std::uint64_t> sent_;  // per peer, as peers_
  std::uint64_t received_ = 0;
  std::uint64_t acked_ = 0;
  std::uint64_t refused_ = 0;
  std::uint64_t tombstones_dropped_ = 0;
  std::atomic<std::int64_t> unproven_before_ms_{0};
};

}  // namespace sumcache::daemon
