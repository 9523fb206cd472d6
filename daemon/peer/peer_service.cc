#include "daemon/peer/peer_service.h"

#include <pthread.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "daemon/peer/icp_agent.h"
#include "daemon/peer/membership_plan.h"
#include "daemon/peer/peer_listeners.h"
#include "daemon/peer/peer_sources.h"
#include "daemon/peer/redis_bus.h"
#include "daemon/peer/summary_exchange.h"
#include "protocol/squid_digest.h"

namespace sumcache::daemon {

using namespace asio::experimental::awaitable_operators;

namespace {

// The whole file, at most 1 MiB; nullopt with `why` (naming the file) when it cannot be read.
std::optional<std::string> read_hosts_file(const std::filesystem::path& path, std::string& why) {
  constexpr std::uintmax_t kMaxHostsFile = 1 << 20;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxHostsFile) {
    why = path.string() + ": " + (ec ? ec.message() : "larger than 1 MiB");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  std::string text(static_cast<std::size_t>(size), '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size()))) {
    why = path.string() + ": cannot read";
    return std::nullopt;
  }
  return text;
}

// A membership step as a coroutine of its own, to run on the peer thread.
awaitable<MembershipResult> run_step(std::function<MembershipResult()> step) { co_return step(); }

std::vector<IcpPeer> icp_peers(const std::vector<config::PeerConfig>& peers, Logger& log) {
  std::vector<IcpPeer> out;
  for (const auto& p : peers) {
    error_code ec;
    const auto address = asio::ip::make_address(p.host, ec);
    if (ec) {
      // ICP is UDP to an address: a name would need a resolver per query.
      log.warn("peer " + p.id + ": icp needs an IP address, not " + p.host + ": never queried");
      out.push_back({p.id, {}, std::nullopt});
      continue;
    }
    IcpPeer peer{p.id, asio::ip::udp::endpoint(address, p.icp_port), std::nullopt};
    if (!p.icp_source_address.empty()) {
      const auto source = asio::ip::make_address(p.icp_source_address, ec);  // checked at load
      if (!ec) peer.source = source;
    }
    out.push_back(std::move(peer));
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
      fingerprints_(store.hasher(), peer_max_fingerprints(config)),
      guard_(io_.get_executor()) {}

PeerService::~PeerService() { stop(); }

bool PeerService::start() {
  const auto& c = config_.cluster;
  std::string failed;
  // A file the config names must be usable at startup (docs/style.md, "Error policy"); a
  // later failure to read it again only keeps the peers as they are.
  if (!c.discovery.hosts_file.empty() && !read_hosts_file(c.discovery.hosts_file, failed)) {
    log_.error("cluster.discovery.hosts_file " + failed);
    return false;
  }
  if (c.sharing == config::Sharing::summary) {
    exchange_ = std::make_unique<SummaryExchange>(io_.get_executor(), config_, store_, log_, table_,
                                                  directory_, fingerprints_);
    exchange_->on_grace_over([this](const Peer& peer) {
      // A discovered peer that stays away leaves the table too; one named in
      // the config or added by the admin stays, and is pulled when it returns.
      if (peer.source == PeerSource::discovery) remove_member(peer.config.id, "down past grace");
    });
    if (!exchange_->listen(failed)) {
      log_.error("cannot start the cluster: " + failed);
      return false;
    }
    if (c.transport == config::ClusterTransport::redis) {
      RedisBusHooks hooks{
          [this](const config::PeerConfig& peer) { return add_member(peer, PeerSource::redis); },
          [this](const std::string& id, const std::string& why) { remove_member(id, why); }};
      bus_ = std::make_unique<RedisBus>(io_.get_executor(), config_, log_, table_, *exchange_,
                                        std::move(hooks));
      if (!bus_->prepare(failed)) {
        log_.error("cannot start the redis transport: " + failed);
        return false;
      }
      exchange_->set_bus(bus_.get());
    }
    exchange_->start();
    if (bus_) bus_->start();
    if (!c.discovery.name.empty()) asio::co_spawn(io_, discovery_loop(), asio::detached);
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
        [this](std::string_view url) { return store_.holds(url, store_.hash_key(url)); }, log_);
    if (auto iec = icp_->start()) {
      log_.error("cannot start ICP on " + c.peer_listen.address + ":" + std::to_string(c.icp_port) +
                 ": " + iec.message());
      return false;
    }
    // ICP asks every peer that is not down; it needs no summary.
    {
      std::lock_guard lock(table_.mutex());
      for (const auto& peer : table_.peers()) peer->link.state = PeerState::up;
    }
    table_.refresh_eligible(std::chrono::steady_clock::now(), c.summary_expiry_ms, false);
    asio::co_spawn(io_, icp_probe_loop(), asio::detached);
  } else {
    return true;
  }
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "sc-peer");
    io_.run();
  });
  log_.info(std::string("cluster: sharing ") + (icp_ ? "icp" : "summary") +
            (bus_ ? " over redis" : "") + " with " + std::to_string(table_.size()) + " peers");
  return true;
}

void PeerService::stop() {
  if (!thread_.joinable()) return;
  asio::post(io_, [this] {
    if (bus_) bus_->stop();
    if (exchange_) exchange_->stop();
    if (icp_) icp_->stop();
  });
  guard_.reset();
  // Pending pushes end at their deadline; do not wait for them on shutdown.
  asio::post(io_, [this] { io_.stop(); });
  thread_.join();
}

void PeerService::begin_drain() {
  if (icp_) icp_->refuse_fetches();
}

awaitable<PeerCandidates> PeerService::candidates(std::string_view key,
                                                  const filters::Hash128& hash) {
  PeerCandidates out;
  const std::uint64_t eligible = table_.eligible();
  if (eligible == 0) co_return out;
  if (icp_) {
    auto result =
        co_await icp_->query(std::string(key), timeout_.load(std::memory_order_relaxed), eligible);
    note_icp(~eligible, result);  // the peers not eligible were the down ones
    if (result.hit) {
      if (auto peer = table_.get(*result.hit)) {
        out.order[0] = static_cast<std::uint8_t>(*result.hit);
        out.peers[0] = std::move(peer);
        out.count = 1;
      }
    }
    co_return out;
  }
  // Squid digests probe at Squid's MD5 store key of the URL: computed only
  // while one is held (docs/filters.md, "Squid digests in the directory").
  std::optional<filters::SquidKey> squid_key;
  if (directory_.probes_squid()) squid_key = protocol::squid_store_key(key);
  // A peer's slot holds a Bloom filter or a fingerprint set, never both.
  std::uint64_t claims = directory_.claims(hash, squid_key ? &*squid_key : nullptr, eligible) |
                         fingerprints_.claims(hash, eligible);
  while (claims != 0) {
    const auto slot = static_cast<std::uint8_t>(std::countr_zero(claims));
    claims &= claims - 1;
    auto peer = table_.get(slot);
    if (!peer) continue;  // removed since the mask was read
    out.order[out.count] = slot;
    out.peers[out.count++] = std::move(peer);
  }
  // Best first: smoothed RTT divided by weight (an unmeasured peer, RTT 0,
  // goes first so that it gets measured).
  const auto cost = [](const Peer& p) {
    return static_cast<double>(p.srtt_us.load(std::memory_order_relaxed)) /
           std::max<std::uint32_t>(p.weight.load(std::memory_order_relaxed), 1);
  };
  std::array<std::size_t, filters::SummaryDirectory::kMaxPeers> rank{};
  for (std::size_t c = 0; c < out.count; ++c) rank[c] = c;
  std::sort(
      rank.begin(), rank.begin() + static_cast<std::ptrdiff_t>(out.count),
      [&](std::size_t a, std::size_t b) { return cost(*out.peers[a]) < cost(*out.peers[b]); });
  PeerCandidates sorted;
  sorted.count = out.count;
  for (std::size_t c = 0; c < out.count; ++c) {
    sorted.order[c] = out.order[rank[c]];
    sorted.peers[c] = std::move(out.peers[rank[c]]);
  }
  co_return sorted;
}

void PeerService::report(Peer& peer, PeerOutcome outcome, std::chrono::microseconds rtt,
                         std::string_view error) {
  auto& c = peer.counters;
  c.requests_sent.fetch_add(1, std::memory_order_relaxed);
  switch (outcome) {
    case PeerOutcome::hit:
      c.true_hits.fetch_add(1, std::memory_order_relaxed);
      break;
    case PeerOutcome::false_hit:
      c.false_hits.fetch_add(1, std::memory_order_relaxed);
      break;
    case PeerOutcome::error:
      c.request_errors.fetch_add(1, std::memory_order_relaxed);
      table_.record_failure(peer, "object request: " + std::string(error),
                            std::chrono::steady_clock::now());
      return;
  }
  PeerTable::record_rtt(peer, rtt);
}

void PeerService::apply_live(const config::Config& config) {
  const config::ClusterConfig& cluster = config.cluster;
  // The exchange reads config_ on the io thread alone.
  timeout_.store(cluster.peer_timeout_ms, std::memory_order_relaxed);
  expiry_.store(cluster.summary_expiry_ms, std::memory_order_relaxed);
  asio::post(io_, [this, cluster, peers = config.peers] {
    config_.cluster = cluster;
    std::vector<Member> current;
    for (const auto& p : table_.peers()) current.push_back({p->config, p->source});
    const MembershipPlan plan = plan_reload(config_.peers, peers, current);
    config_.peers = peers;
    for (const auto& change : plan.reweight) {
      if (const auto slot = table_.find(change.id)) {
        if (auto peer = table_.get(*slot)) {
          peer->weight.store(change.weight, std::memory_order_relaxed);
        }
      }
    }
    if (plan.remove.empty() && plan.add.empty()) return;
    if (!exchange_) {
      // ICP's agent holds its peers from the start (server.cc logs the restart needed).
      return;
    }
    for (const auto& id : plan.remove) remove_member(id, "not in the reloaded config");
    for (const auto& peer : plan.add) add_member(peer, PeerSource::config);
  });
}

MembershipResult PeerService::add_member(const config::PeerConfig& peer, PeerSource source) {
  const auto refuse = [&](MembershipResult r) {
    join_refused_.fetch_add(1, std::memory_order_relaxed);
    if (const auto held = join_refused_log_.admit(LogLimiter::Clock::now())) {
      log_.warn("peer " + peer.id.substr(0, 64) + " (" + to_string(source) + ") not added: " +
                r.reason + (*held > 0 ? " (and " + std::to_string(*held) + " more refused)" : ""));
    }
    return r;
  };
  if (!exchange_) {
    return refuse({409, "peers change at runtime with cluster.sharing \"summary\" only"});
  }
  std::vector<Member> current;
  for (const auto& p : table_.peers()) current.push_back({p->config, p->source});
  if (auto why = check_join(peer, node_id_, current, PeerTable::kSlots)) {
    return refuse({why->status, why->reason});
  }
  auto added = table_.add(peer, source);
  if (!added) return refuse({409, "the peer table is full"});
  exchange_->add_lane(added);
  joined_.fetch_add(1, std::memory_order_relaxed);
  log_.info("peer " + peer.id + " added (" + to_string(source) + "): " + peer.host + ":" +
            std::to_string(peer.peer_port) + ", slot " + std::to_string(added->slot));
  refresh_sources();
  return {201, "peer " + peer.id + " added"};
}

MembershipResult PeerService::remove_member(std::string_view id, std::string_view why) {
  if (!exchange_) return {409, "peers change at runtime with cluster.sharing \"summary\" only"};
  const auto removed = table_.remove(id);
  if (!removed) return {404, "no peer \"" + std::string(id.substr(0, 64)) + "\""};
  exchange_->remove_lane(*removed);
  // Its directory column is empty now: the slot may take another peer.
  table_.release(removed->slot);
  left_.fetch_add(1, std::memory_order_relaxed);
  log_.info("peer " + removed->config.id + " removed (" + std::string(why) + ")");
  refresh_sources();
  return {200, "peer " + removed->config.id + " removed"};
}

awaitable<MembershipResult> PeerService::add_peer(config::PeerConfig peer) {
  std::function<MembershipResult()> step = [this, peer = std::move(peer)] {
    return add_member(peer, PeerSource::admin);
  };
  // Named, never a temporary inside the co_await: GCC 12 destroys those twice.
  auto on_peer_thread = run_step(std::move(step));
  const MembershipResult result =
      co_await asio::co_spawn(io_, std::move(on_peer_thread), asio::use_awaitable);
  co_return result;
}

awaitable<MembershipResult> PeerService::remove_peer(std::string id) {
  std::function<MembershipResult()> step = [this, id = std::move(id)] {
    return remove_member(id, "admin");
  };
  auto on_peer_thread = run_step(std::move(step));
  const MembershipResult result =
      co_await asio::co_spawn(io_, std::move(on_peer_thread), asio::use_awaitable);
  co_return result;
}

void PeerService::refresh_sources() {
  asio::co_spawn(io_, resolve_sources(++sources_generation_), asio::detached);
}

awaitable<void> PeerService::resolve_sources(std::uint64_t generation) {
  std::vector<config::PeerConfig> peers;
  for (const auto& p : table_.peers()) peers.push_back(p->config);
  auto sources = co_await resolve_peer_sources(io_.get_executor(), config_.cluster, peers, log_,
                                               "peer listeners", config_.cluster.peer_timeout_ms);
  if (generation != sources_generation_) co_return;  // a later change decides
  if (exchange_) exchange_->set_sources(sources);
  if (sources_handler_) sources_handler_(std::move(sources));
  if (!listeners_handler_) co_return;
  auto listeners = co_await resolve_peer_listeners(io_.get_executor(), peers, config_.admin.port,
                                                   log_, config_.cluster.peer_timeout_ms);
  if (generation == sources_generation_) listeners_handler_(std::move(listeners));
}

MembershipStats PeerService::membership_stats() const {
  MembershipStats s;
  s.joined = joined_.load(std::memory_order_relaxed);
  s.left = left_.load(std::memory_order_relaxed);
  s.join_refused = join_refused_.load(std::memory_order_relaxed);
  s.grace_drops = exchange_ ? exchange_->grace_drops() : 0;
  s.discovery_failures = discovery_failures_.load(std::memory_order_relaxed);
  return s;
}

std::optional<RedisBusStats> PeerService::redis_stats() const {
  if (!bus_) return std::nullopt;
  return bus_->stats();
}

void PeerService::discovery_failed(const std::string& what) {
  discovery_failures_.fetch_add(1, std::memory_order_relaxed);
  if (const auto held = discovery_log_.admit(LogLimiter::Clock::now())) {
    log_.warn("cluster.discovery: " + what +
              (*held > 0 ? " (and " + std::to_string(*held) + " more failures)" : ""));
  }
}

awaitable<std::optional<std::vector<std::string>>> PeerService::look_up(std::string& why) {
  const config::DiscoveryConfig& d = config_.cluster.discovery;
  if (!d.hosts_file.empty()) {
    // Read whole each time: a test (or an operator) rewrites it in place.
    auto text = read_hosts_file(d.hosts_file, why);
    if (!text) co_return std::nullopt;
    co_return hosts_file_addresses(*text, d.name);
  }
  tcp::resolver resolver(io_);
  asio::steady_timer timer(io_, config_.cluster.peer_timeout_ms);
  auto outcome =
      co_await (resolver.async_resolve(d.name, "0", use_nothrow) || timer.async_wait(use_nothrow));
  if (outcome.index() == 1) {
    why = d.name + " did not resolve within cluster.peer_timeout_ms";
    co_return std::nullopt;
  }
  auto [ec, results] = std::get<0>(std::move(outcome));
  if (ec) {
    why = d.name + ": " + ec.message();
    co_return std::nullopt;
  }
  std::vector<std::string> addresses;
  for (const auto& r : results) {
    std::string a = r.endpoint().address().to_string();
    if (std::find(addresses.begin(), addresses.end(), a) == addresses.end()) {
      addresses.push_back(std::move(a));
    }
  }
  co_return addresses;
}

awaitable<void> PeerService::discovery_loop() {
  asio::steady_timer timer(io_);
  while (exchange_) {
    std::string why;
    if (auto resolved = co_await look_up(why)) {
      // Known: this node, and every peer's host. Gone: a discovered one's.
      std::vector<std::string> known(aliases_.begin(), aliases_.end());
      for (const auto& p : table_.peers()) known.push_back(p->config.host);
      const DiscoveryPlan plan = plan_discovery(*resolved, known);
      for (const auto& p : table_.peers()) {
        if (p->source != PeerSource::discovery) continue;
        if (std::find(plan.gone.begin(), plan.gone.end(), p->config.host) != plan.gone.end()) {
          remove_member(p->config.id, "its address left " + config_.cluster.discovery.name);
        }
      }
      for (const auto& address : plan.probe) {
        if (probing_.insert(address).second) asio::co_spawn(io_, probe(address), asio::detached);
      }
    } else {
      discovery_failed(why + ": the peers stay as they are");
    }
    timer.expires_after(config_.cluster.discovery.interval_ms);
    auto [ec] = co_await timer.async_wait(use_nothrow);
    if (ec) co_return;
  }
}

awaitable<void> PeerService::probe(std::string address) {
  std::string why;
  const auto id = co_await exchange_->probe(address, why);
  probing_.erase(address);
  if (!id) {
    // Not up yet, or not a sumcache node of this cluster: asked again next round.
    discovery_failed(address + " gives no node id: " + why);
    co_return;
  }
  if (*id == node_id_ || table_.find(*id)) {
    aliases_.insert(address);
    co_return;
  }
  // Bound: `address` is node `id`, on this node's own ports (docs/peers.md).
  config::PeerConfig peer;
  peer.id = *id;
  peer.host = address;
  peer.http_port = config_.listen.empty() ? peer.http_port : config_.listen.front().port;
  peer.peer_port = config_.cluster.peer_listen.port;
  peer.icp_port = config_.cluster.icp_port;
  peer.object_port = config_.cluster.object_listen.port;
  add_member(peer, PeerSource::discovery);
}

RefusalCounts PeerService::listener_refusals() const {
  return exchange_ ? exchange_->listener_refusals() : RefusalCounts{};
}

std::optional<IcpPeerCounters> PeerService::icp_totals() const {
  if (!icp_) return std::nullopt;
  IcpPeerCounters totals = icp_->totals();
  totals.marked_down = icp_marked_down_.load(std::memory_order_relaxed);
  totals.probes_answered = icp_probes_answered_.load(std::memory_order_relaxed);
  totals.probes_unanswered = icp_probes_unanswered_.load(std::memory_order_relaxed);
  return totals;
}

AcceptCounts PeerService::listener_accept_failures() const {
  return exchange_ ? exchange_->listener_accept_failures() : AcceptCounts{};
}

std::uint64_t PeerService::encode_failures() const {
  return exchange_ ? exchange_->encode_failures() : 0;
}

SummaryMemory PeerService::summary_memory() const {
  SummaryMemory out;
  out.bloom_directory_bytes = directory_.memory_bytes();
  out.fingerprint_directory_bytes = fingerprints_.memory_bytes();
  for (unsigned s = 0; s < filters::FingerprintDirectory::kMaxPeers; ++s) {
    out.fingerprint_entries += fingerprints_.size_of(s);
  }
  for (const PeerStatus& p : status()) {
    if (p.summary_kind == "bloom") out.bloom_copies_bytes += p.m / 8;
  }
  out.fingerprints_refused = exchange_ ? exchange_->fingerprints_refused() : 0;
  return out;
}

PeerStatusList PeerService::status() const {
  PeerStatusList list =
      table_.status(std::chrono::steady_clock::now(), expiry_.load(std::memory_order_relaxed));
  // Each peer's share of the directories: by entries of the fingerprint
  // tables, by m of the bit-sliced words (a slot's column), plus a Bloom
  // peer's own copy of its bits (its PeerSummary).
  const std::size_t fingerprint_bytes = fingerprints_.memory_bytes();
  const std::size_t bloom_bytes = directory_.memory_bytes();
  std::uint64_t entries = 0;
  std::uint64_t bits = 0;
  for (unsigned s = 0; s < filters::SummaryDirectory::kMaxPeers; ++s) {
    entries += fingerprints_.size_of(s);
    bits += directory_.params_of(s).m;
  }
  for (PeerStatus& p : list) {
    const auto slot = table_.find(p.id);
    if (!slot) continue;
    const double fp_share = entries == 0 ? 0.0
                                         : static_cast<double>(fingerprints_.size_of(*slot)) /
                                               static_cast<double>(entries);
    const double bloom_share =
        bits == 0 ? 0.0
                  : static_cast<double>(directory_.params_of(*slot).m) / static_cast<double>(bits);
    p.summary_memory_bytes =
        static_cast<std::uint64_t>(fp_share * static_cast<double>(fingerprint_bytes) +
                                   bloom_share * static_cast<double>(bloom_bytes)) +
        (p.summary_kind == "bloom" ? p.m / 8 : 0);
  }
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
    for (const auto& peer : table_.peers()) none.push_back({peer->config.id, 0});
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
