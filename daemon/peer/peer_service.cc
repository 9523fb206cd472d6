#include "daemon/peer/peer_service.h"

#include <pthread.h>

#include <algorithm>

#include "daemon/peer/icp_agent.h"
#include "daemon/peer/summary_exchange.h"

namespace sumcache::daemon {

namespace {

std::vector<IcpPeer> icp_peers(const std::vector<config::PeerConfig>& peers, Logger& log) {
  std::vector<IcpPeer> out;
  for (const auto& p : peers) {
    error_code ec;
    const auto address = asio::ip::make_address(p.host, ec);
    if (ec) {
      // ICP is UDP to an address: a name would need a resolver per query.
      log.warn("peer " + p.id + ": icp needs an IP address, not " + p.host + ": never queried");
      out.push_back({p.id, {}});
      continue;
    }
    out.push_back({p.id, asio::ip::udp::endpoint(address, p.icp_port)});
  }
  return out;
}

}  // namespace

PeerService::PeerService(const config::Config& config, Store& store, Logger& log)
    : config_(config),
      node_id_(config.node.id),
      store_(store),
      log_(log),
      table_(config.peers),
      timeout_(config.cluster.peer_timeout_ms),
      expiry_(config.cluster.summary_expiry_ms),
      directory_(store.hasher()),
      guard_(io_.get_executor()) {}

PeerService::~PeerService() { stop(); }

bool PeerService::start() {
  const auto& c = config_.cluster;
  std::string failed;
  if (c.sharing == config::Sharing::summary) {
    exchange_ = std::make_unique<SummaryExchange>(io_.get_executor(), config_, store_, log_,
                                                  table_, directory_);
    if (!exchange_->listen(failed)) {
      log_.error("cannot start the cluster: " + failed);
      return false;
    }
    exchange_->start();
  } else if (c.sharing == config::Sharing::icp) {
    error_code ec;
    const auto address = asio::ip::make_address(c.peer_listen.address, ec);
    if (ec) {
      log_.error("cannot start ICP: address " + c.peer_listen.address + ": " + ec.message());
      return false;
    }
    icp_ = std::make_unique<IcpAgent>(
        io_.get_executor(), asio::ip::udp::endpoint(address, c.icp_port),
        icp_peers(config_.peers, log_),
        [this](std::string_view url) { return store_.holds(url, store_.hash_key(url)); },
        log_);
    if (auto iec = icp_->start()) {
      log_.error("cannot start ICP on " + c.peer_listen.address + ":" + std::to_string(c.icp_port) +
                 ": " + iec.message());
      return false;
    }
    // ICP asks every peer that is not down; it needs no summary.
    {
      std::lock_guard lock(table_.mutex());
      for (std::size_t i = 0; i < table_.size(); ++i) table_.at(i).link.state = PeerState::up;
    }
    table_.refresh_eligible(std::chrono::steady_clock::now(), c.summary_expiry_ms, false);
    asio::co_spawn(io_, icp_health_loop(), asio::detached);
  } else {
    return true;
  }
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "sc-peer");
    io_.run();
  });
  log_.info(std::string("cluster: sharing ") + (icp_ ? "icp" : "summary") + " with " +
            std::to_string(table_.size()) + " peers");
  return true;
}

void PeerService::stop() {
  if (!thread_.joinable()) return;
  asio::post(io_, [this] {
    if (exchange_) exchange_->stop();
    if (icp_) icp_->stop();
  });
  guard_.reset();
  // Pending pushes end at their deadline; do not wait for them on shutdown.
  asio::post(io_, [this] { io_.stop(); });
  thread_.join();
}

awaitable<PeerCandidates> PeerService::candidates(std::string_view key,
                                                  const filters::Hash128& hash) {
  PeerCandidates out;
  const std::uint64_t eligible = table_.eligible();
  if (eligible == 0) co_return out;
  if (icp_) {
    auto result = co_await icp_->query(std::string(key), timeout_.load(std::memory_order_relaxed),
                                     eligible);
    if (result.hit) out.order[out.count++] = static_cast<std::uint8_t>(*result.hit);
    co_return out;
  }
  std::uint64_t claims = directory_.claims(hash, eligible);
  while (claims != 0) {
    out.order[out.count++] = static_cast<std::uint8_t>(std::countr_zero(claims));
    claims &= claims - 1;
  }
  // Slots are peer indexes. Best first: smoothed RTT divided by weight (an
  // unmeasured peer, RTT 0, goes first so that it gets measured).
  const auto cost = [this](std::uint8_t i) {
    const Peer& p = table_.at(i);
    return static_cast<double>(p.srtt_us.load(std::memory_order_relaxed)) /
           std::max<std::uint32_t>(p.weight.load(std::memory_order_relaxed), 1);
  };
  std::sort(out.order.begin(), out.order.begin() + static_cast<std::ptrdiff_t>(out.count),
            [&cost](std::uint8_t a, std::uint8_t b) { return cost(a) < cost(b); });
  co_return out;
}

awaitable<void> PeerService::icp_health_loop() {
  asio::steady_timer timer(io_);
  icp_seen_ = icp_->counters();
  for (;;) {
    timer.expires_after(std::chrono::seconds(1));
    auto [ec] = co_await timer.async_wait(use_nothrow);
    if (ec || !icp_) co_return;
    const auto now_counters = icp_->counters();
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < table_.size() && i < now_counters.size(); ++i) {
      const auto& was = icp_seen_[i];
      const auto& is = now_counters[i];
      if (is.replies_received() > was.replies_received()) {
        table_.record_success(i);
      } else if (is.unanswered > was.unanswered) {
        table_.record_failure(i, "ICP queries unanswered", now);
      } else {
        std::lock_guard lock(table_.mutex());
        PeerLink& link = table_.at(i).link;
        if (link.state == PeerState::down && now >= link.retry_at) link.state = PeerState::suspect;
      }
    }
    icp_seen_ = now_counters;
    table_.refresh_eligible(now, expiry_.load(std::memory_order_relaxed), false);
  }
}

void PeerService::report(std::size_t i, PeerOutcome outcome, std::chrono::microseconds rtt,
                         std::string_view error) {
  auto& c = table_.at(i).counters;
  c.requests_sent.fetch_add(1, std::memory_order_relaxed);
  switch (outcome) {
    case PeerOutcome::hit: c.true_hits.fetch_add(1, std::memory_order_relaxed); break;
    case PeerOutcome::false_hit: c.false_hits.fetch_add(1, std::memory_order_relaxed); break;
    case PeerOutcome::error:
      c.request_errors.fetch_add(1, std::memory_order_relaxed);
      table_.record_failure(i, "object request: " + std::string(error),
                            std::chrono::steady_clock::now());
      return;
  }
  table_.record_rtt(i, rtt);
}

void PeerService::apply_live(const config::Config& config) {
  for (std::size_t i = 0; i < table_.size() && i < config.peers.size(); ++i) {
    table_.at(i).weight.store(config.peers[i].weight, std::memory_order_relaxed);
  }
  const config::ClusterConfig& cluster = config.cluster;
  // The exchange reads config_ on the io thread alone.
  timeout_.store(cluster.peer_timeout_ms, std::memory_order_relaxed);
  expiry_.store(cluster.summary_expiry_ms, std::memory_order_relaxed);
  asio::post(io_, [this, cluster] { config_.cluster = cluster; });
}

RefusalCounts PeerService::listener_refusals() const {
  return exchange_ ? exchange_->listener_refusals() : RefusalCounts{};
}

PeerStatusList PeerService::status() const {
  PeerStatusList list =
      table_.status(std::chrono::steady_clock::now(), expiry_.load(std::memory_order_relaxed));
  if (icp_) {
    // ICP datagrams are this mode's inter-proxy messages (docs/icp.md).
    const auto counters = icp_->counters();
    for (std::size_t i = 0; i < list.size() && i < counters.size(); ++i) {
      const auto& c = counters[i];
      list[i].messages_sent += c.queries_sent + c.replies_sent();
      list[i].messages_received += c.queries_received + c.replies_received() + c.late_replies;
      list[i].bytes_sent += c.bytes_sent;
      list[i].bytes_received += c.bytes_received;
      list[i].messages_rejected += c.rejected;
    }
  }
  return list;
}

}  // namespace sumcache::daemon

namespace sumcache::daemon {

std::uint64_t PeerService::invalidate(protocol::InvalidationKind kind, std::string_view key) {
  if (!exchange_) return 0;
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const AddedPurge added =
      exchange_->invalidations().add(kind, std::string(key), static_cast<std::uint64_t>(now_ms));
  if (added.sequence == 0 || added.tombstone_dropped) {
    if (const auto held = invalidation_log_.admit(LogLimiter::Clock::now())) {
      const std::string what = kind == protocol::InvalidationKind::tag      ? "tag"
                               : kind == protocol::InvalidationKind::prefix ? "prefix"
                                                                            : "URL";
      std::string line =
          added.sequence == 0
              ? what + " purge of " + std::string(key.substr(0, 256)) +
                    " not sent to peers: longer than an invalidation carries"
              : what +
                    " purge tombstones over their cap: the oldest dropped, so a peer that "
                    "has not acknowledged it may serve what it named again";
      if (*held > 0) line += " (and " + std::to_string(*held) + " more)";
      log_.warn(line);
    }
    if (added.sequence == 0) return 0;
  }
  asio::post(io_, [this] {
    if (exchange_) exchange_->wake_invalidation_senders();
  });
  return added.sequence;
}

bool PeerService::tombstoned(std::string_view key) const {
  return exchange_ && exchange_->invalidations().tombstoned(key);
}

bool PeerService::tag_tombstoned(const std::vector<std::string>& tags) const {
  return exchange_ && exchange_->invalidations().tag_tombstoned(tags);
}

bool PeerService::any_tag_tombstone() const {
  return exchange_ && exchange_->invalidations().any_tag_tombstone();
}

std::int64_t PeerService::unproven_before_ms() const {
  return exchange_ ? exchange_->invalidations().unproven_before_ms() : 0;
}

awaitable<PurgeReach> PeerService::await_reach(std::uint64_t sequence,
                                               asio::any_io_executor executor) {
  if (!exchange_) {
    std::vector<PeerAcked> none;
    for (std::size_t i = 0; i < table_.size(); ++i) none.push_back({table_.at(i).config.id, 0});
    co_return purge_reach(0, none);
  }
  ClusterInvalidations& inv = exchange_->invalidations();
  PurgeReach reach = inv.reach(sequence);
  if (sequence == 0) co_return reach;
  // Acks arrive on the peer thread; polling keeps this free of cross-thread wakeups.
  constexpr auto kPoll = std::chrono::milliseconds(10);
  const auto deadline = std::chrono::steady_clock::now() + timeout_.load(std::memory_order_relaxed);
  asio::steady_timer timer(executor);
  while (!reach.complete() && std::chrono::steady_clock::now() < deadline) {
    timer.expires_after(kPoll);
    co_await timer.async_wait(use_nothrow);
    reach = inv.reach(sequence);
  }
  co_return reach;
}

std::optional<InvalidationStats> PeerService::invalidation_stats() const {
  if (!exchange_) return std::nullopt;
  return exchange_->invalidations().stats();
}

}  // namespace sumcache::daemon
