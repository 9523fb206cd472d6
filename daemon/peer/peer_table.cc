#include "daemon/peer/peer_table.h"

#include <algorithm>

#include "filters/fingerprint.h"

namespace sumcache::daemon {

PeerTable::PeerTable(const std::vector<config::PeerConfig>& peers) {
  for (const auto& c : peers) add(c, PeerSource::config);
}

std::optional<std::size_t> PeerTable::find(std::string_view id) const {
  for (std::uint64_t left = occupied(); left != 0; left &= left - 1) {
    const auto slot = static_cast<std::size_t>(std::countr_zero(left));
    const auto peer = get(slot);
    if (peer && peer->config.id == id) return slot;
  }
  return std::nullopt;
}

std::vector<std::shared_ptr<Peer>> PeerTable::peers() const {
  std::vector<std::shared_ptr<Peer>> out;
  for (std::uint64_t left = occupied(); left != 0; left &= left - 1) {
    if (auto peer = get(static_cast<std::size_t>(std::countr_zero(left)))) {
      out.push_back(std::move(peer));
    }
  }
  return out;
}

std::shared_ptr<Peer> PeerTable::add(const config::PeerConfig& config, PeerSource source) {
  std::lock_guard lock(mutex_);
  if (reserved_ == ~std::uint64_t{0}) return nullptr;
  const auto slot = static_cast<unsigned>(std::countr_one(reserved_));
  auto peer = std::make_shared<Peer>();
  peer->config = config;
  peer->source = source;
  peer->slot = slot;
  peer->weight.store(config.weight, std::memory_order_relaxed);
  reserved_ |= std::uint64_t{1} << slot;
  // The Peer is complete before a reader can find it through occupied().
  slots_[slot].store(peer, std::memory_order_release);
  occupied_.fetch_or(std::uint64_t{1} << slot, std::memory_order_acq_rel);
  return peer;
}

std::shared_ptr<Peer> PeerTable::remove(std::string_view id) {
  const auto slot = find(id);
  if (!slot) return nullptr;
  std::lock_guard lock(mutex_);
  const std::uint64_t bit = std::uint64_t{1} << *slot;
  // Out of the eligible mask first: no miss picks it from here on.
  eligible_.fetch_and(~bit, std::memory_order_acq_rel);
  occupied_.fetch_and(~bit, std::memory_order_acq_rel);
  return slots_[*slot].exchange(nullptr, std::memory_order_acq_rel);
}

void PeerTable::release(std::size_t slot) {
  std::lock_guard lock(mutex_);
  if (get(slot)) return;  // still (or again) in use
  reserved_ &= ~(std::uint64_t{1} << slot);
}

void PeerTable::refresh_eligible(SteadyTime now, std::chrono::milliseconds expiry,
                                 bool need_summary) {
  std::lock_guard lock(mutex_);
  std::uint64_t mask = 0;
  for (const auto& p : peers()) {
    const PeerLink& l = p->link;
    if (l.state == PeerState::down) continue;
    const bool held = p->config.protocol == config::PeerProtocol::squid_digest
                          ? l.digest.held
                          : l.summary.has_state();
    if (need_summary && (!held || now - l.summary_at > expiry)) continue;
    mask |= std::uint64_t{1} << p->slot;
  }
  eligible_.store(mask, std::memory_order_release);
}

void PeerTable::record_rtt(Peer& peer, std::chrono::microseconds sample) {
  auto& srtt = peer.srtt_us;
  const auto s =
      static_cast<std::uint32_t>(std::clamp<std::int64_t>(sample.count(), 1, 60'000'000));
  const std::uint32_t old = srtt.load(std::memory_order_relaxed);
  srtt.store(old == 0 ? s : old - old / 8 + s / 8, std::memory_order_relaxed);
}

void PeerTable::record_failure(Peer& peer, std::string error, SteadyTime now) {
  std::lock_guard lock(mutex_);
  PeerLink& l = peer.link;
  ++l.failures;
  const bool was_down = l.state == PeerState::down;
  l.state = l.failures >= kDownAfter ? PeerState::down : PeerState::suspect;
  if (l.state == PeerState::down && !was_down) l.down_since = now;
  l.needs_full = true;
  const unsigned shift = std::min(l.failures, 7U);
  l.retry_at = now + std::chrono::milliseconds(100) * (1U << shift);  // 0.2 s up to 12.8 s
  l.last_error = std::move(error);
  // A removed peer's slot may be another's by now: only the current one's bit.
  if (l.state == PeerState::down && current(peer)) {
    eligible_.fetch_and(~(std::uint64_t{1} << peer.slot), std::memory_order_acq_rel);
  }
}

bool PeerTable::mark_down(Peer& peer, std::string error, SteadyTime now) {
  std::lock_guard lock(mutex_);
  PeerLink& l = peer.link;
  if (l.state == PeerState::down) return false;
  l.failures = std::max(l.failures, kDownAfter);
  l.state = PeerState::down;
  l.down_since = now;
  l.last_error = std::move(error);
  if (current(peer))
    eligible_.fetch_and(~(std::uint64_t{1} << peer.slot), std::memory_order_acq_rel);
  return true;
}

bool PeerTable::record_success(Peer& peer) {
  std::lock_guard lock(mutex_);
  PeerLink& l = peer.link;
  const bool was_down = l.state == PeerState::down;
  l.failures = 0;
  l.state = PeerState::up;
  l.retry_at = {};
  return was_down;
}

PeerStatusList PeerTable::status(SteadyTime now, std::chrono::milliseconds expiry) const {
  std::lock_guard lock(mutex_);
  PeerStatusList list;
  for (const auto& p : peers()) {
    PeerStatus s;
    s.id = p->config.id;
    s.host = p->config.host;
    s.http_port = p->config.http_port;
    s.peer_port = p->config.peer_port;
    s.source = p->source;
    s.protocol =
        p->config.protocol == config::PeerProtocol::squid_digest ? "squid-digest" : "summary";
    s.state = p->link.state;
    const auto& sum = p->link.summary;
    s.has_summary = sum.has_state();
    if (s.has_summary) {
      s.summary_epoch = sum.epoch();
      s.summary_sequence = sum.sequence();
      s.summary_age_seconds = std::chrono::duration<double>(now - p->link.summary_at).count();
      s.summary_expired = now - p->link.summary_at > expiry;
      s.entries = sum.entries();
      if (sum.holds_fingerprints()) {
        s.summary_kind = "fingerprint";
        s.m = sum.info().params.m;
        s.k = 1;
        s.estimated_fpr = filters::fingerprint_fpr(s.entries, s.m);
      } else {
        const auto& bits = sum.bits();
        s.summary_kind = "bloom";
        s.m = bits.params().m;
        s.k = bits.params().k;
        s.fill_ratio = static_cast<double>(bits.count_set_bits()) / static_cast<double>(s.m);
        s.estimated_fpr = bits.estimated_fpr();
      }
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
    s.pushes_refused = c.pushes_refused.load(std::memory_order_relaxed);
    if (p->config.protocol == config::PeerProtocol::squid_digest) {
      SquidDigestStatus d;
      const SquidDigestLink& link = p->link.digest;
      d.fetches_ok = c.digest_fetches_ok.load(std::memory_order_relaxed);
      d.not_modified = c.digest_not_modified.load(std::memory_order_relaxed);
      d.refused = c.digest_refused.load(std::memory_order_relaxed);
      d.errors = c.digest_errors.load(std::memory_order_relaxed);
      d.held = link.held;
      d.capacity = link.header.capacity;
      d.count = link.header.count;
      d.mask_bytes = link.header.mask_size;
      d.bits_per_entry = link.header.bits_per_entry;
      d.used_percent = link.used_percent;
      d.last_modified = link.last_modified;
      d.fetched_at_ms = link.fetched_at_ms;
      d.next_fetch_ms = link.next_fetch_ms;
      if (link.held) {
        d.age_seconds = std::chrono::duration<double>(now - p->link.summary_at).count();
        d.expired = now - p->link.summary_at > expiry;
      }
      s.squid_digest = d;
    }
    s.rtt_ms = p->srtt_us.load(std::memory_order_relaxed) / 1000.0;
    s.last_error = p->link.last_error;
    list.push_back(std::move(s));
  }
  return list;
}

}  // namespace sumcache::daemon
