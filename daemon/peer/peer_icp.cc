// PeerService's side of ICP peers' health (docs/icp.md, "Dead peers"): the
// rule of icp_health.h applied after every query, a miss's or a probe, and
// the probe loop that asks the down peers again.

#include <bit>

#include "daemon/peer/icp_agent.h"
#include "daemon/peer/icp_health.h"
#include "daemon/peer/peer_service.h"

namespace sumcache::daemon {

std::uint64_t PeerService::icp_down() const {
  std::lock_guard lock(table_.mutex());
  std::uint64_t down = 0;
  for (const auto& p : table_.peers()) {
    if (p->link.state == PeerState::down) down |= std::uint64_t{1} << p->slot;
  }
  return down;
}

// Any thread: a worker after its miss's query, the peer thread after a probe.
void PeerService::note_icp(std::uint64_t down, const IcpQueryResult& result) {
  const IcpHealthChange change = icp_health_after(down, result);
  if ((change.went_down | change.came_up) == 0) return;
  const auto now = std::chrono::steady_clock::now();
  const auto timeout = timeout_.load(std::memory_order_relaxed);
  // ICP peers keep the slots of the config's order: the agent's index is the slot.
  for (std::uint64_t left = change.went_down; left != 0; left &= left - 1) {
    const auto peer = table_.get(static_cast<std::size_t>(std::countr_zero(left)));
    if (!peer || !table_.mark_down(*peer, "ICP query unanswered", now)) continue;
    icp_marked_down_.fetch_add(1, std::memory_order_relaxed);
    if (const auto held = icp_down_log_.admit(LogLimiter::Clock::now())) {
      log_.warn("icp: peer " + peer->config.id + " marked down: no reply to a query within " +
                std::to_string(timeout.count()) + " ms; no miss asks it until it answers a probe" +
                (*held > 0 ? " (and " + std::to_string(*held) + " more marked down)" : ""));
    }
  }
  for (std::uint64_t left = change.came_up; left != 0; left &= left - 1) {
    const auto peer = table_.get(static_cast<std::size_t>(std::countr_zero(left)));
    if (peer && table_.record_success(*peer)) {
      log_.info("icp: peer " + peer->config.id + " answered a probe: up again");
    }
  }
  if (change.came_up != 0) {
    table_.refresh_eligible(now, expiry_.load(std::memory_order_relaxed), false);
  }
}

awaitable<void> PeerService::icp_probe_loop() {
  asio::steady_timer timer(io_);
  for (;;) {
    timer.expires_after(kIcpProbeInterval);
    auto [ec] = co_await timer.async_wait(use_nothrow);
    if (ec || !icp_) co_return;
    const std::uint64_t down = icp_down();
    if (down == 0) continue;
    const IcpQueryResult result = co_await icp_->query(
        std::string(kIcpProbeUrl), timeout_.load(std::memory_order_relaxed), down);
    if (result.stopped) co_return;
    icp_probes_answered_.fetch_add(static_cast<std::uint64_t>(std::popcount(result.answered)),
                                   std::memory_order_relaxed);
    icp_probes_unanswered_.fetch_add(static_cast<std::uint64_t>(std::popcount(result.silent)),
                                     std::memory_order_relaxed);
    note_icp(down, result);
  }
}

}  // namespace sumcache::daemon
