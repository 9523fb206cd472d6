#include "daemon/peer/squid_digest_peers.h"

#include <algorithm>

#include "daemon/http/http_date.h"
#include "daemon/peer/squid_digest_schedule.h"

namespace sumcache::daemon {

namespace {

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::optional<std::chrono::sys_seconds> date_of(const std::string& text,
                                                std::chrono::sys_seconds now) {
  if (text.empty()) return std::nullopt;
  return parse_http_date_any_case(text, now);
}

}  // namespace

SquidDigestPeers::SquidDigestPeers(asio::any_io_executor executor, const config::Config& config,
                                   Logger& log, PeerTable& table,
                                   filters::SummaryDirectory& directory,
                                   std::uint64_t max_mask_bits)
    : executor_(std::move(executor)),
      config_(config),
      log_(log),
      table_(table),
      directory_(directory),
      max_mask_bytes_(static_cast<std::uint32_t>(max_mask_bits / 8)) {}

void SquidDigestPeers::add(std::shared_ptr<Peer> peer) {
  const unsigned slot = peer->slot;
  auto lane = std::make_shared<Lane>(std::move(peer), executor_);
  lanes_[slot] = lane;
  if (started_) asio::co_spawn(executor_, loop(std::move(lane)), asio::detached);
}

void SquidDigestPeers::remove(const Peer& peer) {
  auto& lane = lanes_[peer.slot];
  if (!lane || lane->peer.get() != &peer) return;
  lane->removed = true;
  lane->timer.cancel();
  lane.reset();
  directory_.clear(peer.slot);
}

void SquidDigestPeers::start() {
  started_ = true;
  for (const auto& lane : lanes_) {
    if (lane) asio::co_spawn(executor_, loop(lane), asio::detached);
  }
}

void SquidDigestPeers::stop() {
  started_ = false;
  for (const auto& lane : lanes_) {
    if (!lane) continue;
    lane->removed = true;
    lane->timer.cancel();
  }
}

awaitable<void> SquidDigestPeers::loop(std::shared_ptr<Lane> lane) {
  while (!lane->removed) {
    const std::chrono::milliseconds next = co_await fetch(*lane);
    if (lane->removed) co_return;
    {
      std::lock_guard lock(table_.mutex());
      lane->peer->link.digest.next_fetch_ms = wall_ms() + next.count();
    }
    lane->timer.expires_after(next);
    co_await lane->timer.async_wait(use_nothrow);
  }
}

awaitable<std::chrono::milliseconds> SquidDigestPeers::fetch(Lane& lane) {
  Peer& peer = *lane.peer;
  const DigestSchedule schedule =
      digest_schedule(config_.cluster.update_max_interval_ms, config_.cluster.summary_expiry_ms);
  SquidDigestRequest request{peer.config.host, peer.config.http_port, {}, max_mask_bytes_};
  {
    std::lock_guard lock(table_.mutex());
    if (peer.link.digest.held) request.if_modified_since = peer.link.digest.last_modified;
  }
  const SquidDigestFetch got =
      co_await fetch_squid_digest(executor_, std::move(request), config_.cluster.peer_timeout_ms);
  if (lane.removed) co_return std::chrono::milliseconds(0);
  auto& counters = peer.counters;
  counters.bytes_received.fetch_add(got.body_bytes, std::memory_order_relaxed);
  switch (got.result) {
    case DigestFetchResult::error:
      counters.digest_errors.fetch_add(1, std::memory_order_relaxed);
      failed(lane, got.why);
      co_return delay_after_failure(lane.failures, schedule);
    case DigestFetchResult::refused:
      counters.digest_refused.fetch_add(1, std::memory_order_relaxed);
      counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
      refused(lane, got.why);
      co_return delay_after_failure(lane.failures, schedule);
    case DigestFetchResult::not_modified:
    case DigestFetchResult::ok:
      break;
  }
  const bool fresh = got.result == DigestFetchResult::ok;
  if (fresh) {
    // Into the directory first: a failure there keeps the digest held before.
    if (auto ec = directory_.set_squid(peer.slot, got.digest.mask())) {
      counters.digest_refused.fetch_add(1, std::memory_order_relaxed);
      refused(lane, "not held: " + ec.message());
      co_return delay_after_failure(lane.failures, schedule);
    }
  }
  (fresh ? counters.digest_fetches_ok : counters.digest_not_modified)
      .fetch_add(1, std::memory_order_relaxed);
  counters.messages_received.fetch_add(1, std::memory_order_relaxed);
  PeerTable::record_rtt(peer, got.rtt);
  table_.record_success(peer);
  lane.failures = 0;
  const auto now = std::chrono::steady_clock::now();
  const auto wall = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  {
    std::lock_guard lock(table_.mutex());
    PeerLink& link = peer.link;
    SquidDigestLink& d = link.digest;
    if (fresh) {
      d.held = true;
      d.header = got.digest.header();
      d.used_percent = got.digest.used_percent();
      d.last_modified = got.last_modified;
    }
    // A 304 says the digest held is the Squid's current one: as young as a new one.
    link.summary_at = now;
    d.fetched_at_ms = wall_ms();
    link.last_error.clear();
  }
  table_.refresh_eligible(now, config_.cluster.summary_expiry_ms, true);
  co_return delay_after_answer(date_of(got.expires, wall), date_of(got.date, wall), wall, schedule);
}

void SquidDigestPeers::refused(Lane& lane, const std::string& why) {
  ++lane.failures;
  {
    std::lock_guard lock(table_.mutex());
    lane.peer->link.last_error = "digest refused: " + why;
  }
  if (const auto held = refused_log_.admit(LogLimiter::Clock::now())) {
    log_.warn("peer " + lane.peer->config.id + ": Squid digest refused: " + why +
              "; the digest held before stays in use" +
              (*held > 0 ? " (and " + std::to_string(*held) + " more refused)" : ""));
  }
}

void SquidDigestPeers::failed(Lane& lane, const std::string& why) {
  ++lane.failures;
  table_.record_failure(*lane.peer, "digest fetch: " + why, std::chrono::steady_clock::now());
  if (const auto held = error_log_.admit(LogLimiter::Clock::now())) {
    log_.warn("peer " + lane.peer->config.id + ": Squid digest fetch failed: " + why +
              (*held > 0 ? " (and " + std::to_string(*held) + " more failed)" : ""));
  }
}

}  // namespace sumcache::daemon
