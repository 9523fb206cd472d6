#include "daemon/peer/cluster_invalidations.h"

#include <algorithm>

namespace sumcache::daemon {

ClusterInvalidations::ClusterInvalidations(std::string node_id, std::uint64_t epoch,
                                           std::vector<std::string> peers,
                                           std::size_t max_tombstones)
    : peers_(std::move(peers)),
      outbox_(std::move(node_id), epoch),
      tombstones_(max_tombstones),
      tag_tombstones_(std::min(max_tombstones, kMaxPatternTombstones)),
      prefix_tombstones_(std::min(max_tombstones, kMaxPatternTombstones)),
      sent_(peers_.size(), 0) {
  for (const auto& p : peers_) outbox_.add_peer(p, 0);
}

AddedPurge ClusterInvalidations::add(protocol::InvalidationKind kind, std::string value,
                                     std::uint64_t time_ms) {
  std::lock_guard lock(mutex_);
  auto sequence = outbox_.add({kind, time_ms, value});
  if (!sequence) return {};
  // Without peers nothing waits for an acknowledgement.
  if (peers_.empty()) return {*sequence, false};
  TombstoneTable& table = kind == protocol::InvalidationKind::tag      ? tag_tombstones_
                          : kind == protocol::InvalidationKind::prefix ? prefix_tombstones_
                                                                       : tombstones_;
  const bool dropped = table.add(std::move(value), *sequence);
  if (dropped) ++tombstones_dropped_;
  return {*sequence, dropped};
}

bool ClusterInvalidations::tombstoned(std::string_view key) const {
  std::lock_guard lock(mutex_);
  return tombstones_.covers(key) || prefix_tombstones_.covers_prefix_of(key);
}

bool ClusterInvalidations::tag_tombstoned(const std::vector<std::string>& tags) const {
  std::lock_guard lock(mutex_);
  return std::any_of(tags.begin(), tags.end(),
                     [&](const std::string& tag) { return tag_tombstones_.covers(tag); });
}

bool ClusterInvalidations::any_tag_tombstone() const {
  std::lock_guard lock(mutex_);
  return tag_tombstones_.size() > 0;
}

std::optional<protocol::InvalidationBatch> ClusterInvalidations::batch_for(
    std::string_view peer) const {
  std::lock_guard lock(mutex_);
  return outbox_.batch_for(peer);
}

protocol::AckOutcome ClusterInvalidations::ack(const protocol::InvalidationAck& ack) {
  std::lock_guard lock(mutex_);
  const std::uint64_t before = outbox_.acked_through(ack.node_id).value_or(0);
  const protocol::AckOutcome outcome = outbox_.ack(ack);
  if (outcome != protocol::AckOutcome::accepted) {
    ++refused_;
    return outcome;
  }
  if (ack.acked_through > before) acked_ += ack.acked_through - before;
  const std::uint64_t all = outbox_.acked_by_all();
  tombstones_.release_through(all);
  tag_tombstones_.release_through(all);
  prefix_tombstones_.release_through(all);
  return outcome;
}

void ClusterInvalidations::count_sent(std::string_view peer, std::size_t invalidations) {
  std::lock_guard lock(mutex_);
  const auto it = std::find(peers_.begin(), peers_.end(), peer);
  if (it != peers_.end()) sent_[static_cast<std::size_t>(it - peers_.begin())] += invalidations;
}

void ClusterInvalidations::add_peer(const std::string& peer) {
  std::lock_guard lock(mutex_);
  if (std::find(peers_.begin(), peers_.end(), peer) != peers_.end()) return;
  if (!outbox_.add_peer(peer, 0)) return;
  peers_.push_back(peer);
  sent_.push_back(0);
}

void ClusterInvalidations::remove_peer(std::string_view peer) {
  std::lock_guard lock(mutex_);
  const auto it = std::find(peers_.begin(), peers_.end(), peer);
  if (it == peers_.end()) return;
  sent_.erase(sent_.begin() + (it - peers_.begin()));
  peers_.erase(it);
  outbox_.remove_peer(peer);
  tombstones_.release_through(outbox_.acked_by_all());
}

void ClusterInvalidations::count_received(std::size_t invalidations) {
  std::lock_guard lock(mutex_);
  received_ += invalidations;
}

void ClusterInvalidations::count_refused() {
  std::lock_guard lock(mutex_);
  ++refused_;
}

void ClusterInvalidations::raise_unproven_before(std::int64_t ms) {
  std::int64_t held = unproven_before_ms_.load(std::memory_order_relaxed);
  while (held < ms &&
         !unproven_before_ms_.compare_exchange_weak(held, ms, std::memory_order_relaxed)) {
  }
}

PurgeReach ClusterInvalidations::reach(std::uint64_t sequence) const {
  std::vector<PeerAcked> acked;
  {
    std::lock_guard lock(mutex_);
    for (const auto& p : peers_) acked.push_back({p, outbox_.acked_through(p).value_or(0)});
  }
  return purge_reach(sequence, acked);
}

InvalidationStats ClusterInvalidations::stats() const {
  InvalidationStats s;
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    InvalidationPeerStatus p{peers_[i], sent_[i], outbox_.acked_through(peers_[i]).value_or(0),
                             outbox_.pending(peers_[i])};
    s.sent += p.sent;
    s.pending += p.pending;
    s.peers.push_back(std::move(p));
  }
  s.received = received_;
  s.acked = acked_;
  s.refused = refused_;
  s.tombstones = tombstones_.size() + tag_tombstones_.size() + prefix_tombstones_.size();
  s.tombstones_dropped = tombstones_dropped_;
  s.unproven_before_ms = unproven_before_ms();
  return s;
}

}  // namespace sumcache::daemon
