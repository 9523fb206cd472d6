#include "daemon/peer/peer_table.h"

#include <algorithm>

namespace sumcache::daemon {

PeerTable::PeerTable(const std::vector<config::PeerConfig>& peers) {
  unsigned slot = 0;
  for (const auto& c : peers) {
    auto p = std::make_unique<Peer>();
    p->config = c;
    p->slot = slot++;
    p->weight.store(c.weight, std::memory_order_relaxed);
    peers_.push_back(std::move(p));
  }
}

std::optional<std::size_t> PeerTable::find(std::string_view id) const {
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    if (peers_[i]->config.id == id) return i;
  }
  return std::nullopt;
}

void PeerTable::refresh_eligible(SteadyTime now, std::chrono::milliseconds expiry,
                                 bool need_summary) {
  std::lock_guard lock(mutex_);
  std::uint64_t mask = 0;
  for (const auto& p : peers_) {
    const PeerLink& l = p->link;
    if (l.state == PeerState::down) continue;
    if (need_summary && (!l.summary.has_state() || now - l.summary_at > expiry)) continue;
    mask |= std::uint64_t{1} << p->slot;
  }
  eligible_.store(mask, std::memory_order_release);
}

void PeerTable::record_rtt(std::size_t i, std::chrono::microseconds sample) {
  auto& srtt = peers_[i]->srtt_us;
  const auto s = static_cast<std::uint32_t>(std::clamp<std::int64_t>(sample.count(), 1, 60'000'000));
  const std::uint32_t old = srtt.load(std::memory_order_relaxed);
  srtt.store(old == 0 ? s : old - old / 8 + s / 8, std::memory_order_relaxed);
}

void PeerTable::record_failure(std::size_t i, std::string error, SteadyTime now) {
  std::lock_guard lock(mutex_);
  PeerLink& l = peers_[i]->link;
  ++l.failures;
  l.state = l.failures >= kDownAfter ? PeerState::down : PeerState::suspect;
  l.needs_full = true;
  const unsigned shift = std::min(l.failures, 7U);
  l.retry_at = now + std::chrono::milliseconds(100) * (1U << shift);  // 0.2 s up to 12.8 s
  l.last_error = std::move(error);
  if (l.state == PeerState::down) {
    eligible_.fetch_and(~(std::uint64_t{1} << peers_[i]->slot), std::memory_order_acq_rel);
  }
}

void PeerTable::record_success(std::size_t i) {
  std::lock_guard lock(mutex_);
  PeerLink& l = peers_[i]->link;
  l.failures = 0;
  l.state = PeerState::up;
  l.retry_at = {};
}

PeerStatusList PeerTable::status(SteadyTime now, std::chrono::milliseconds expiry) const {
  std::lock_guard lock(mutex_);
  PeerStatusList list;
  for (const auto& p : peers_) {
    PeerStatus s;
    s.id = p->config.id;
    s.host = p->config.host;
    s.http_port = p->config.http_port;
    s.peer_port = p->config.peer_port;
    s.state = p->link.state;
    const auto& sum = p->link.summary;
    s.has_summary = sum.has_state();
    if (s.has_summary) {
      s.summary_epoch = sum.epoch();
      s.summary_sequence = sum.sequence();
      s.summary_age_seconds = std::chrono::duration<double>(now - p->link.summary_at).count();
      s.summary_expired = now - p->link.summary_at > expiry;
      s.entries = sum.entries();
      const auto& bits = sum.bits();
      s.m = bits.params().m;
      s.k = bits.params().k;
      s.fill_ratio = static_cast<double>(bits.count_set_bits()) / static_cast<double>(s.m);
      s.estimated_fpr = bits.estimated_fpr();
    }
    const auto& c = p->counters;
    s.requests_sent = c.requests_sent.load(std::memory_order_relaxed);
    s.true_hits = c.true_hits.load(std::memory_order_relaxed);
    s.false_hits = c.false_hits.load(std::memory_order_relaxed);
    s.request_errors = c.request_errors.load(std::memory_order_relaxed);
    s.messages_sent = c.messages_sent.load(std::memory_order_relaxed);
    s.messages_received = c.messages_received.load(std::memory_order_relaxed);
    s.bytes_sent = c.bytes_sent.load(std::memory_order_relaxed);
    s.bytes_received = c.bytes_received.load(std::memory_order_relaxed);
    s.messages_rejected = c.messages_rejected.load(std::memory_order_relaxed);
    s.rtt_ms = p->srtt_us.load(std::memory_order_relaxed) / 1000.0;
    s.last_error = p->link.last_error;
    list.push_back(std::move(s));
  }
  return list;
}

}  // namespace sumcache::daemon
