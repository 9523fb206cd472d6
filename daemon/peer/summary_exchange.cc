#include "daemon/peer/summary_exchange.h"

#include <algorithm>

#include "daemon/peer/cluster_tls.h"
#include "daemon/peer/membership_plan.h"
#include "daemon/peer/peer_sources.h"
#include "daemon/peer/redis_bus.h"
#include "filters/filter_error.h"
#include "protocol/channel_auth.h"
#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/invalidation_message.h"
#include "protocol/message_bounds.h"
#include "protocol/node_id.h"
#include "protocol/peer_auth.h"
#include "protocol/protocol_error.h"
#include "protocol/wire_header.h"

namespace sumcache::daemon {

namespace {

using std::chrono::milliseconds;

std::uint64_t new_epoch() {
  // The start's wall time in microseconds. Receivers refuse an epoch below the
  // one they hold (docs/peers.md, "Epochs never go back"), so a later start
  // must have a higher one even within the same second: seconds with random
  // low bits gave a restart within one second a lower epoch half the time.
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(now).count());
}

// No summary larger than the directories can hold is worth allocating. A
// Bloom filter's m is bits held here, so the bit-sliced directory's cap; a
// fingerprint set's m is its universe, held as values, bounded by their count.
protocol::DecodeLimits limits(std::string_view message, std::uint64_t max_fingerprints) {
  protocol::DecodeLimits l;
  const bool fingerprints = message.size() >= protocol::kHeaderBytes &&
                            protocol::is_fingerprint_kind(static_cast<protocol::MessageKind>(
                                protocol::read_header(message).kind));
  l.max_m = fingerprints ? filters::kMaxUniverse : filters::kMaxDirectoryBits;
  l.max_message_bytes = kMaxSummaryBytes;
  l.max_fingerprints = max_fingerprints;
  return l;
}

bool is_full(protocol::MessageKind kind) {
  return kind == protocol::MessageKind::full || kind == protocol::MessageKind::fingerprint_full;
}

SummaryResponse answer(unsigned status, std::string body) {
  return {status, {}, "text/plain", std::move(body)};
}

// cluster.peer_max_filter_bits, or when 0: room for peers with up to 4 times
// this node's m (peers usually share one filter config), at least 2^20, at
// most what the directory holds.
std::uint64_t peer_filter_bits(const config::ClusterConfig& c, std::uint64_t own_m) {
  if (c.peer_max_filter_bits != 0) return c.peer_max_filter_bits;
  return std::clamp<std::uint64_t>(4 * own_m, std::uint64_t{1} << 20, filters::kMaxDirectoryBits);
}

// The peer answers with a summary: up, and pushes to it need not wait out a
// backoff (a peer that just joined or came back learns of this node at once).
void link_up(PeerLink& link, SteadyTime now) {
  link.summary_at = now;
  link.failures = 0;
  link.state = PeerState::up;
  link.retry_at = {};
}

// This node's m, or for a fingerprint table (whose m is its universe) the
// paper's 16 bits per expected entry: the Bloom filter its peers likely keep.
std::uint64_t own_filter_bits(const config::Config& config, const Store& store) {
  const FilterStats f = store.filter_stats();
  return f.fingerprint ? 16 * config::filter_expected_entries(config) : f.m;
}

// Each peer pushes and pulls one at a time: 2 each, and a few for the admin's probes.
std::size_t max_connections(const config::ClusterConfig& c, std::size_t peers) {
  return c.peer_max_connections != 0 ? c.peer_max_connections : 2 * peers + 4;
}

SummaryListenerLimits listener_limits(const config::ClusterConfig& c, std::size_t peers) {
  SummaryListenerLimits l;
  l.head_timeout = c.peer_head_timeout_ms;
  l.timeout = c.peer_timeout_ms;
  l.max_connections = max_connections(c, peers);
  return l;
}

std::int64_t wall_ms() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The clocks of a cluster agree within this (NTP; as for peer object requests,
// docs/protocol.md): a time on a peer's clock is taken as up to this much later here.
constexpr std::int64_t kClockAllowanceMs = protocol::kPeerAuthWindowSeconds * 1000;

// Why a message of `node` with epoch `got` is refused while `held` is held
// (docs/protocol.md, "Receiver state"), with what an operator can do about a
// genuine peer whose clock was set back across a restart.
std::string stale_epoch_why(const std::string& what, std::string_view node, std::uint64_t got,
                            std::uint64_t held) {
  return "stale_epoch: " + what + " of node " + printable_id(node) + " with epoch " +
         std::to_string(got) + ", below the epoch held " + std::to_string(held) +
         ": a replay, or that node restarted with its clock set back (then fix its clock and "
         "remove and re-add it as a peer, or restart this node)";
}

// Retries of a batch to a peer that did not answer: from 250 ms, doubling, at most 4 s.
constexpr milliseconds kFirstRetry{250};
constexpr milliseconds kMaxRetry{4000};

}  // namespace

SummaryExchange::SummaryExchange(asio::any_io_executor executor, const config::Config& config,
                                 Store& store, Logger& log, PeerTable& table,
                                 filters::SummaryDirectory& directory,
                                 filters::FingerprintDirectory& fingerprints)
    : executor_(executor),
      config_(config),
      store_(store),
      log_(log),
      table_(table),
      directory_(directory),
      fingerprints_(fingerprints),
      tls_server_(config.cluster.tls.enabled
                      ? std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server)
                      : nullptr),
      tls_client_(config.cluster.tls.enabled
                      ? std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client)
                      : nullptr),
      listener_(executor, *this, log, listener_limits(config.cluster, table.size()),
                {config.node.id, config.cluster.secret}, tls_server_.get()),
      timer_(executor),
      epoch_(new_epoch()),
      max_filter_bits_(peer_filter_bits(config.cluster, own_filter_bits(config, store))),
      max_fingerprints_(peer_max_fingerprints(config)),
      invalidations_(config.node.id, epoch_, {}),
      squid_(executor, config, log, table, directory, max_filter_bits_) {
  for (auto& peer : table.peers()) add_lane(std::move(peer));
}

void SummaryExchange::add_lane(std::shared_ptr<Peer> peer) {
  // A Squid hears none of this node's purges, so none waits for its ack (docs/interop.md).
  if (peer->config.protocol == config::PeerProtocol::squid_digest) {
    squid_.add(std::move(peer));
    return;
  }
  const unsigned slot = peer->slot;
  invalidations_.add_peer(peer->config.id);
  auto lane = std::make_shared<PeerLane>(
      std::move(peer), executor_,
      TokenBucket(config_.cluster.peer_summary_rate, config_.cluster.peer_summary_burst));
  lanes_[slot] = lane;
  if (started_) asio::co_spawn(executor_, invalidation_loop(std::move(lane)), asio::detached);
}

void SummaryExchange::remove_lane(const Peer& peer) {
  if (peer.config.protocol == config::PeerProtocol::squid_digest) {
    squid_.remove(peer);
    return;
  }
  auto& lane = lanes_[peer.slot];
  if (!lane || lane->peer.get() != &peer) return;
  lane->removed = true;
  lane->invalidation_timer.cancel();
  lane.reset();
  // Nothing of it stays in the directories, and its purges wait no longer.
  directory_.clear(peer.slot);
  fingerprints_.clear(peer.slot);
  invalidations_.remove_peer(peer.config.id);
}

void SummaryExchange::set_sources(std::optional<AccessList> sources) {
  listener_.set_sources(std::move(sources));
  listener_.set_max_connections(max_connections(config_.cluster, table_.size()));
}

PeerLane* SummaryExchange::lane_of(std::string_view node_id) const {
  const auto slot = table_.find(node_id);
  return slot ? lanes_[*slot].get() : nullptr;
}

bool SummaryExchange::listen(std::string& failed) {
  if (tls_server_ && !load_cluster_tls(*tls_server_, *tls_client_, config_.cluster.tls, failed)) {
    return false;
  }
  const auto& at = config_.cluster.peer_listen;
  error_code ec;
  const auto address = asio::ip::make_address(at.address, ec);
  if (ec) {
    failed = "peer listener address " + at.address + ": " + ec.message();
    return false;
  }
  std::vector<config::PeerConfig> peers;
  for (const auto& peer : table_.peers()) peers.push_back(peer->config);
  listener_.set_sources(peer_sources(executor_, config_.cluster, peers, log_, "peer listener"));
  std::string step;
  if (auto lec = listener_.listen({address, at.port}, step)) {
    failed = "peer listener " + at.address + ":" + std::to_string(at.port) + ": " + step + ": " +
             lec.message();
    return false;
  }
  return true;
}

void SummaryExchange::start() {
  listener_.start();
  started_ = true;
  squid_.start();
  asio::co_spawn(executor_, publish_loop(), asio::detached);
  for (const auto& lane : lanes_) {
    if (lane) asio::co_spawn(executor_, invalidation_loop(lane), asio::detached);
  }
}

void SummaryExchange::stop() {
  stopped_ = true;
  squid_.stop();
  listener_.stop();
  timer_.cancel();
  for (const auto& lane : lanes_) {
    if (lane) lane->invalidation_timer.cancel();
  }
}

protocol::SummaryInfo SummaryExchange::info() const {
  const FilterStats f = store_.filter_stats();
  protocol::SummaryInfo i;
  i.node_id = config_.node.id;
  i.epoch = epoch_;
  i.sequence = sequence_;
  i.params = {f.m, f.k};
  i.hasher = store_.hasher();
  // A fingerprint message states the size of the set it describes: the one marked.
  i.entries = f.fingerprint ? marked_entries_ : f.entries;
  return i;
}

std::string SummaryExchange::etag() const {
  return "\"" + std::to_string(epoch_) + "-" + std::to_string(sequence_) + "\"";
}

std::optional<std::string> SummaryExchange::secret_for(std::string_view node_id) const {
  if (!table_.find(node_id)) return std::nullopt;
  return config_.cluster.secret;
}

Verdict SummaryExchange::admit(const SummaryHead& head, const ChannelProof& proof,
                               std::size_t& peer) {
  PeerLimits limits;
  // The sender's slot, kSlots when it is no peer (a plain index: GCC's -O2
  // cannot see that check_head refuses every unknown sender).
  std::size_t slot = PeerTable::kSlots;
  if (head.node && protocol::valid_node_id(*head.node)) {
    if (const auto found = table_.find(*head.node); found && lanes_[*found]) slot = *found;
  }
  // With discovery, a node this one has not found yet may read its summary:
  // that is how it learns this node's id (docs/peers.md, "Live membership").
  // The summary is signed, and so is the answer, for this request's nonce;
  // what it pushes waits until it is found here.
  if (slot == PeerTable::kSlots && head.method == beast::http::verb::get &&
      !config_.cluster.discovery.name.empty() && head.node && protocol::valid_node_id(*head.node)) {
    limits.known = true;
    if (Verdict v = check_head(head, limits)) return v;
    peer = PeerTable::kSlots;  // none: a GET holds no peer
    return {};
  }
  if (slot != PeerTable::kSlots) {
    limits.known = true;
    limits.max_message =
        summary_message_bound(max_filter_bits_, max_fingerprints_, head.node->size());
  }
  if (Verdict v = check_head(head, limits)) return v;
  peer = slot;
  PeerLane& lane = *lanes_[peer];
  const std::string id = printable_id(*head.node);
  // Each head is taken once: its nonce, signed with its t, is remembered
  // until t leaves the window (or the peer's floor passes it).
  switch (lane.replay.admit(proof.nonce, proof.time, proof.now)) {
    case protocol::ChannelAuthErrc::ok:
      break;
    case protocol::ChannelAuthErrc::replayed:
      return {401, Refusal::replayed,
              make_error_code(protocol::ChannelAuthErrc::replayed).message()};
    default:
      return {401, Refusal::auth,
              "Sumcache-Channel-Auth time is at or below node " + id + "'s replay floor"};
  }
  if (head.method != beast::http::verb::post || is_invalidations(head)) return {};
  // Batches are bounded and answered at once: they take no token of the summary rate.
  const auto wait = lane.bucket.wait(std::chrono::steady_clock::now());
  if (wait > wait.zero()) {
    const auto seconds = std::chrono::ceil<std::chrono::seconds>(wait).count();
    return {429, Refusal::rate, "node " + id + " is over cluster.peer_summary_rate",
            static_cast<unsigned>(std::max<std::int64_t>(seconds, 1))};
  }
  return {};
}

SummaryResponse SummaryExchange::handle(const SummaryRequest& request) {
  if (request.method == beast::http::verb::post) {
    return request.target == kInvalidationsPath ? receive_invalidations(request) : receive(request);
  }
  return serve_full(request);
}

void SummaryExchange::encode_failed(const std::string& what, std::error_code ec) const {
  encode_failures_.fetch_add(1, std::memory_order_relaxed);
  if (const auto held = encode_log_.admit(LogLimiter::Clock::now())) {
    log_.error("cannot encode " + what + ": " + ec.message() +
               (*held > 0 ? " (and " + std::to_string(*held) + " more failures)" : ""));
  }
}

SummaryResponse SummaryExchange::serve_full(const SummaryRequest& request) {
  // Nothing published yet: no sequence a delta could follow.
  if (sequence_ == 0) return answer(503, "no summary published yet\n");
  if (request.if_none_match == etag()) return {304, etag(), kSummaryType, {}};
  auto full = current_full();
  if (!full && store_.keeps_fingerprints()) {
    // The set changed since its mark: a round now marks it (and sends the
    // delta to the peers that follow), and its full is this answer.
    publish_round(true, std::chrono::steady_clock::now(), true);
    full = current_full();
  }
  if (!full) return answer(500, "cannot encode this node's summary\n");
  return {200, etag(), kSummaryType, *full};
}

std::shared_ptr<const std::string> SummaryExchange::current_full() {
  if (!store_.keeps_fingerprints()) {
    auto encoded = protocol::encode_full(info(), store_.filter_snapshot(), config_.cluster.secret);
    if (!encoded) {
      encode_failed("this node's full summary", encoded.error());
      return nullptr;
    }
    return std::make_shared<const std::string>(std::move(encoded).value());
  }
  if (full_ && full_sequence_ == sequence_) return full_;
  auto sorted = store_.fingerprints_if_unchanged();
  if (!sorted) return nullptr;
  marked_entries_ = sorted->size();
  auto encoded = protocol::encode_fingerprint_full(info(), *sorted, config_.cluster.secret);
  if (!encoded) {
    encode_failed("this node's full fingerprint summary", encoded.error());
    return nullptr;
  }
  full_ = std::make_shared<const std::string>(std::move(encoded).value());
  full_sequence_ = sequence_;
  return full_;
}

std::shared_ptr<const std::string> SummaryExchange::publish_fingerprints(SteadyTime now,
                                                                         bool want_full) {
  FingerprintRound round = store_.take_fingerprint_round(want_full);
  const std::uint64_t base = sequence_++;
  last_publish_ = now;
  marked_entries_ = round.entries;
  full_.reset();
  if (round.sorted) {
    auto encoded = protocol::encode_fingerprint_full(info(), *round.sorted, config_.cluster.secret);
    if (encoded) {
      full_ = std::make_shared<const std::string>(std::move(encoded).value());
      full_sequence_ = sequence_;
    } else {
      encode_failed("this node's full fingerprint summary", encoded.error());
    }
  }
  // None on the first round, or past the table's change log: every peer gets the full.
  if (base == 0 || !round.delta) return nullptr;
  auto encoded =
      protocol::encode_fingerprint_delta(info(), base, *round.delta, config_.cluster.secret);
  if (!encoded) {
    encode_failed("a fingerprint summary delta", encoded.error());
    return nullptr;
  }
  return std::make_shared<const std::string>(std::move(encoded).value());
}

bool SummaryExchange::full_wanted(SteadyTime now) const {
  std::lock_guard lock(table_.mutex());
  for (const auto& lane : lanes_) {
    if (lane && !lane->pushing && now >= lane->peer->link.retry_at && lane->peer->link.needs_full) {
      return true;
    }
  }
  return false;
}

SummaryResponse SummaryExchange::receive(const SummaryRequest& request) {
  auto message = protocol::decode(
      request.body, [this](std::string_view id) { return secret_for(id); },
      limits(request.body, max_fingerprints_));
  if (!message) {
    if (PeerLane* lane = lane_of(request.from)) {
      lane->peer->counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
    }
    if (const auto held = reject_log_.admit(std::chrono::steady_clock::now())) {
      log_.warn("peer summary from " + request.remote + " (node " + printable_id(request.from) +
                ") rejected: " + message.error().message() +
                (*held > 0 ? " (and " + std::to_string(*held) + " more rejected)" : ""));
    }
    const bool auth = message.error() == protocol::ProtocolErrc::bad_tag ||
                      message.error() == protocol::ProtocolErrc::unknown_node;
    return answer(auth ? 401 : 400, message.error().message() + "\n");
  }
  PeerLane* lane = lane_of(message->info.node_id);  // decode checked it is a peer
  if (lane == nullptr) return answer(401, "not a peer of this node\n");
  lane->bucket.take(std::chrono::steady_clock::now());  // authenticated: it counts
  auto& counters = lane->peer->counters;
  counters.messages_received.fetch_add(1, std::memory_order_relaxed);
  counters.bytes_received.fetch_add(request.body.size(), std::memory_order_relaxed);
  if (const auto why = stale_summary(*lane, message->info)) {
    // 403, not 409: to a sender 409 asks for a full summary, which would be refused alike.
    counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
    listener_.refused(Refusal::stale_epoch,
                      request.remote + " (node " + printable_id(request.from) + ")", *why);
    return answer(403, *why + "\n");
  }
  return apply(*lane, *message);
}

SummaryResponse SummaryExchange::apply(PeerLane& lane, const protocol::SummaryMessage& message) {
  // Removed while this was on its way: its slot may be another peer's soon.
  if (lane.removed) return answer(401, "not a peer of this node\n");
  Peer& peer = *lane.peer;
  const auto now = std::chrono::steady_clock::now();
  if (protocol::is_fingerprint_kind(message.kind)) {
    {
      std::lock_guard lock(table_.mutex());
      SummaryResponse r = apply_fingerprints(peer, message);
      if (r.status != 204) return r;
      link_up(peer.link, now);
    }
    table_.refresh_eligible(now, config_.cluster.summary_expiry_ms, true);
    return answer(204, {});
  }
  {
    std::lock_guard lock(table_.mutex());
    PeerLink& link = peer.link;
    // A new epoch is a restarted peer: it lost what we sent it.
    if (!link.summary.has_state() || link.summary.epoch() < message.info.epoch) {
      link.needs_full = true;
    }
    const std::uint64_t before = link.summary.has_state() ? link.summary.sequence() : 0;
    const bool had = link.summary.has_state();
    if (auto ec = link.summary.apply(message)) {
      peer.counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
      link.last_error = "summary not applied: " + ec.message();
      log_.info("peer " + peer.config.id + ": " + link.last_error + ": asked for a full one");
      return answer(409, ec.message() + "\n");
    }
    const bool changed =
        !had || link.summary.sequence() != before || message.kind == protocol::MessageKind::full;
    if (changed) {
      const auto ec = message.kind == protocol::MessageKind::full
                          ? directory_.set(peer.slot, link.summary.bits())
                          : directory_.apply(peer.slot, message.changes);
      if (ec) {
        link.last_error = "summary not usable: " + ec.message();
        directory_.clear(peer.slot);
        return answer(400, ec.message() + "\n");
      }
      // A peer that sent fingerprints before (a rolling change of filter.kind).
      if (message.kind == protocol::MessageKind::full) fingerprints_.clear(peer.slot);
    }
    link_up(link, now);
  }
  table_.refresh_eligible(now, config_.cluster.summary_expiry_ms, true);
  return answer(204, {});
}

SummaryResponse SummaryExchange::apply_fingerprints(Peer& peer,
                                                    const protocol::SummaryMessage& message) {
  PeerLink& link = peer.link;
  // A new epoch is a restarted peer: it lost what we sent it.
  if (!link.summary.has_state() || link.summary.epoch() < message.info.epoch) {
    link.needs_full = true;
  }
  const auto admitted = link.summary.admit(message);
  if (!admitted) {
    peer.counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
    link.last_error = "summary not applied: " + admitted.error().message();
    log_.info("peer " + peer.config.id + ": " + link.last_error + ": asked for a full one");
    return answer(409, admitted.error().message() + "\n");
  }
  if (!*admitted) return answer(204, {});  // an old replay: nothing to do
  const bool full = message.kind == protocol::MessageKind::fingerprint_full;
  const auto& f = message.fingerprints;
  // Fingerprints are probed with this node's hash of the key: another hash
  // would claim the wrong keys (the Bloom directory refuses it alike).
  const std::error_code ec = message.info.hasher != fingerprints_.hasher()
                                 ? make_error_code(filters::FilterErrc::parameter_mismatch)
                             : full ? fingerprints_.set(peer.slot, message.info.params.m, f.added)
                                    : fingerprints_.apply(peer.slot, f.removed_ranks, f.added);
  if (ec) {
    // Nothing of it is claimed until a full fits: a delta that does not fit
    // the set held asks for one (409); a set over the cap, or of another
    // hash, is refused (400), as resending it would not help.
    fingerprints_.clear(peer.slot);
    peer.counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
    fingerprints_refused_.fetch_add(1, std::memory_order_relaxed);
    link.last_error = "fingerprint summary not usable: " + ec.message();
    const bool too_large = ec == filters::FilterErrc::too_large;
    const bool refused = too_large || ec == filters::FilterErrc::parameter_mismatch;
    if (const auto held = fingerprint_log_.admit(LogLimiter::Clock::now())) {
      log_.warn("peer " + peer.config.id + ": " + link.last_error +
                (too_large ? " (over cluster.peer_max_fingerprints, " +
                                 std::to_string(max_fingerprints_) + ")"
                 : refused ? " (its hash is not this node's)"
                           : ": asked for a full one") +
                (*held > 0 ? " (and " + std::to_string(*held) + " more refused)" : ""));
    }
    return answer(refused ? 400 : 409, ec.message() + "\n");
  }
  link.summary.commit(message);
  // A peer that sent a Bloom filter before (a rolling change of filter.kind).
  if (full) directory_.clear(peer.slot);
  return answer(204, {});
}

awaitable<void> SummaryExchange::publish_loop() {
  const milliseconds interval = config_.cluster.update_max_interval_ms;
  const milliseconds tick = std::clamp(interval / 10, milliseconds(20), milliseconds(500));
  while (!stopped_) {
    const auto now = std::chrono::steady_clock::now();
    const FilterStats f = store_.filter_stats();
    const std::uint64_t added = store_.filter_keys_added();
    const double threshold = config_.cluster.update_threshold_percent / 100.0 *
                             static_cast<double>(std::max<std::uint64_t>(f.entries, 1));
    // The interval also bounds a quiet node's silence: its peers' copies must
    // not expire while nothing changes.
    const bool due = sequence_ == 0 || static_cast<double>(added) >= threshold ||
                     now - last_publish_ >= interval;
    publish_round(due, now);
    drop_past_grace(now);
    table_.refresh_eligible(now, config_.cluster.summary_expiry_ms, true);
    timer_.expires_after(tick);
    co_await timer_.async_wait(use_nothrow);
  }
}

void SummaryExchange::publish_round(bool delta_due, SteadyTime now, bool want_full) {
  std::shared_ptr<const std::string> delta;
  if (bus_ && bus_->full_wanted(delta_due ? sequence_ + 1 : sequence_)) want_full = true;
  if (store_.keeps_fingerprints()) {
    // A full is the set at a mark: a peer due one when the set changed since
    // the last mark waits for no threshold, the round is now.
    want_full = want_full || (!bus_ && full_wanted(now));
    if (want_full && !delta_due) delta_due = !current_full();
    if (delta_due) delta = publish_fingerprints(now, want_full);
  } else if (delta_due) {
    auto changes = store_.take_filter_delta();
    const std::uint64_t base = sequence_++;
    last_publish_ = now;
    if (!published_) {
      published_ = store_.filter_snapshot();  // first round: every peer gets a full one
    } else if (changes) {
      for (const auto& c : *changes) published_->set_bit(c.position, c.value);
    } else {
      // More flips than the change log holds (a high threshold, a purge):
      // the difference from what the peers were sent is the delta.
      filters::BloomFilter now_bits = store_.filter_snapshot();
      changes = filters::bit_differences(*published_, now_bits);
      published_ = std::move(now_bits);
    }
    if (base != 0) {
      // Not encoded: the peers due a delta get a full summary instead.
      auto encoded = protocol::encode_delta(info(), base, *changes, config_.cluster.secret);
      if (encoded) {
        delta = std::make_shared<const std::string>(std::move(encoded).value());
      } else {
        encode_failed("a summary delta", encoded.error());
      }
    }
  }
  if (bus_) {
    // Published once, to Redis; the peers read it there.
    bus_->publish(sequence_, delta, delta_due && sequence_ > 1 && !delta,
                  [this] { return current_full(); });
    return;
  }
  std::shared_ptr<const std::string> full;
  for (const auto& lane : lanes_) {
    if (!lane) continue;
    Peer& peer = *lane->peer;
    bool send_full = false;
    bool want_pull = false;
    {
      std::lock_guard lock(table_.mutex());
      const PeerLink& link = peer.link;
      if (now < link.retry_at) continue;
      send_full = link.needs_full || (delta_due && !delta);
      want_pull =
          !link.summary.has_state() || now - link.summary_at > config_.cluster.summary_expiry_ms;
    }
    // A peer without a summary here is pulled at once, whatever is pushed to
    // it: a node that just started routes misses as soon as the pulls land.
    if (want_pull && !lane->pulling) {
      lane->pulling = true;
      asio::co_spawn(executor_, pull_from(lane), asio::detached);
    }
    if (lane->pushing) {
      // This delta cannot follow the one still in flight: the next is full.
      if (delta) {
        std::lock_guard lock(table_.mutex());
        peer.link.needs_full = true;
      }
      continue;
    }
    if (send_full && sequence_ != 0) {
      if (!full) full = current_full();
      if (!full) continue;  // the next round tries again
      push(lane, full, true);
    } else if (delta) {
      push(lane, delta, false);
    }
  }
}

void SummaryExchange::drop_past_grace(SteadyTime now) {
  const milliseconds grace = config_.cluster.peer_grace_ms;
  std::vector<std::shared_ptr<Peer>> over;
  {
    std::lock_guard lock(table_.mutex());
    for (const auto& lane : lanes_) {
      if (!lane) continue;
      PeerLink& link = lane->peer->link;
      if (link.state != PeerState::down || !link.summary.has_state() ||
          !past_grace(link.down_since, now, grace)) {
        continue;
      }
      // What it claimed leaves the directory; a pull brings it back when it returns.
      link.summary = protocol::PeerSummary{};
      directory_.clear(lane->peer->slot);
      fingerprints_.clear(lane->peer->slot);
      over.push_back(lane->peer);
    }
  }
  for (const auto& peer : over) {
    grace_drops_.fetch_add(1, std::memory_order_relaxed);
    if (const auto held = grace_log_.admit(std::chrono::steady_clock::now())) {
      log_.warn("peer " + peer->config.id + " down for more than cluster.peer_grace_ms (" +
                std::to_string(grace.count()) + " ms): its summary left the directory" +
                (*held > 0 ? " (and " + std::to_string(*held) + " more peers)" : ""));
    }
    if (grace_over_) grace_over_(*peer);
  }
}

void SummaryExchange::push(const std::shared_ptr<PeerLane>& lane,
                           std::shared_ptr<const std::string> message, bool full) {
  lane->pushing = true;
  asio::co_spawn(executor_, push_to(lane, std::move(message), full), asio::detached);
}

awaitable<void> SummaryExchange::push_to(std::shared_ptr<PeerLane> lane,
                                         std::shared_ptr<const std::string> message, bool full) {
  Peer& peer = *lane->peer;
  PeerHttpRequest req{
      beast::http::verb::post, peer.config.host, peer.config.peer_port, kSummaryPath, *message,
      config_.node.id,         kSummaryType};
  req.to = peer.config.id;
  req.secret = config_.cluster.secret;
  auto [ec, reply] = co_await peer_http_exchange(
      executor_, std::move(req), config_.cluster.peer_timeout_ms, tls_client_.get());
  lane->pushing = false;
  if (lane->removed) co_return;
  const auto now = std::chrono::steady_clock::now();
  if (ec) {
    table_.record_failure(peer, "push: " + ec.message(), now);
    co_return;
  }
  peer.counters.messages_sent.fetch_add(1, std::memory_order_relaxed);
  peer.counters.bytes_sent.fetch_add(message->size(), std::memory_order_relaxed);
  PeerTable::record_rtt(peer, reply.rtt);
  const bool delivered = reply.status == 204 || reply.status == 200;
  if (delivered && !reply.verified) {
    // Not this push's answer (a forgery, or one captured earlier): delivery unproven.
    answer_refused(peer, "push", reply.auth_error);
    table_.record_failure(peer, "push answer not authenticated: " + reply.auth_error.message(),
                          now);
  } else if (delivered) {
    table_.record_success(peer);
    if (log_.enabled(LogLevel::debug)) {
      log_.debug("summary " + std::string(full ? "full" : "delta") + " of " +
                 std::to_string(message->size()) + " bytes delivered to " + peer.config.id);
    }
    if (full) {
      std::lock_guard lock(table_.mutex());
      peer.link.needs_full = false;
    }
  } else if (reply.status == 409 || reply.status == 429) {
    // 409: the peer lost track; 429: it dropped this one (too fast). Either
    // way the next round is full.
    std::lock_guard lock(table_.mutex());
    peer.link.needs_full = true;
  } else {
    // The peer's text, its first line and 200 bytes at most, goes into our log.
    const std::string text =
        reply.body.substr(0, std::min<std::size_t>(reply.body.find('\n'), 200));
    table_.record_failure(peer, "push refused with " + std::to_string(reply.status) + ": " + text,
                          now);
    peer.counters.pushes_refused.fetch_add(1, std::memory_order_relaxed);
    if (const auto held = push_refused_log_.admit(LogLimiter::Clock::now())) {
      log_.warn("peer " + peer.config.id + " refused our summary: " + std::to_string(reply.status) +
                " " + text +
                (*held > 0 ? " (and " + std::to_string(*held) + " more refusals)" : ""));
    }
  }
}

awaitable<void> SummaryExchange::pull_from(std::shared_ptr<PeerLane> lane) {
  Peer& peer = *lane->peer;
  PeerHttpRequest req{
      beast::http::verb::get, peer.config.host, peer.config.peer_port, kSummaryPath, {},
      config_.node.id,        kSummaryType};
  req.to = peer.config.id;
  req.secret = config_.cluster.secret;
  req.max_reply_bytes =
      summary_message_bound(max_filter_bits_, max_fingerprints_, peer.config.id.size());
  auto [ec, reply] = co_await peer_http_exchange(
      executor_, std::move(req), config_.cluster.peer_timeout_ms, tls_client_.get());
  lane->pulling = false;
  if (lane->removed) co_return;
  if (ec) {
    table_.record_failure(peer, "pull: " + ec.message(), std::chrono::steady_clock::now());
    co_return;
  }
  PeerTable::record_rtt(peer, reply.rtt);
  if (reply.status == 503) co_return;  // nothing published yet; it will push
  if (reply.status == 200 && !reply.verified) {
    // A summary played back from an earlier pull would set this peer back.
    answer_refused(peer, "pull", reply.auth_error);
    table_.record_failure(peer, "pull answer not authenticated: " + reply.auth_error.message(),
                          std::chrono::steady_clock::now());
    co_return;
  }
  if (reply.status != 200) {
    // Refused (this node is not its peer yet, or the secret differs): no
    // pull again before the backoff.
    table_.record_failure(peer, "pull refused with " + std::to_string(reply.status),
                          std::chrono::steady_clock::now());
    co_return;
  }
  peer.counters.messages_received.fetch_add(1, std::memory_order_relaxed);
  peer.counters.bytes_received.fetch_add(reply.body.size(), std::memory_order_relaxed);
  auto message = protocol::decode(
      reply.body, [this](std::string_view id) { return secret_for(id); },
      limits(reply.body, max_fingerprints_));
  std::optional<std::string> stale;
  if (message && message->info.node_id == peer.config.id)
    stale = stale_summary(*lane, message->info);
  if (!message || message->info.node_id != peer.config.id || !is_full(message->kind) || stale) {
    peer.counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
    const std::string why = stale     ? *stale
                            : message ? "not a full summary of that peer"
                                      : message.error().message();
    table_.record_failure(peer, "pulled summary rejected: " + why,
                          std::chrono::steady_clock::now());
    if (const auto held = pull_reject_log_.admit(LogLimiter::Clock::now())) {
      log_.warn("peer " + peer.config.id + ": pulled summary rejected: " + why +
                (*held > 0 ? " (and " + std::to_string(*held) + " more rejections)" : ""));
    }
    co_return;
  }
  apply(*lane, *message);
}

void SummaryExchange::answer_refused(Peer& peer, const std::string& what, std::error_code ec) {
  peer.counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
  if (const auto held = answer_auth_log_.admit(LogLimiter::Clock::now())) {
    log_.warn("peer " + peer.config.id + ": " + what + " answer refused: " + ec.message() +
              (*held > 0 ? " (and " + std::to_string(*held) + " more refused answers)" : ""));
  }
}

void SummaryExchange::count_rejected(std::string_view node) {
  if (PeerLane* lane = lane_of(node)) {
    lane->peer->counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
  }
}

BusMessage SummaryExchange::apply_from_bus(std::string_view node, std::string_view bytes,
                                           bool want_full, std::uint64_t record_epoch) {
  BusMessage out;
  PeerLane* lane = lane_of(node);
  if (lane == nullptr || lane->removed) {
    out.outcome = BusMessage::Outcome::not_peer;
    return out;
  }
  auto& counters = lane->peer->counters;
  counters.messages_received.fetch_add(1, std::memory_order_relaxed);
  counters.bytes_received.fetch_add(bytes.size(), std::memory_order_relaxed);
  auto message = protocol::decode(
      bytes, [this](std::string_view id) { return secret_for(id); },
      limits(bytes, max_fingerprints_));
  if (!message) {
    const bool auth = message.error() == protocol::ProtocolErrc::bad_tag ||
                      message.error() == protocol::ProtocolErrc::unknown_node;
    out.reason = auth ? RedisRefusal::message_bad_tag : RedisRefusal::message_malformed;
    out.why = message.error().message();
  } else if (message->info.node_id != node) {
    // Signed with the cluster's secret by another node: not this stream's to carry.
    out.reason = RedisRefusal::message_wrong_node;
    out.why = "signed by node " + printable_id(message->info.node_id);
  } else if (message->info.epoch > record_epoch) {
    // A restart whose member record the next heartbeat reads: read it then.
    out.outcome = BusMessage::Outcome::ahead;
    out.why = "epoch " + std::to_string(message->info.epoch) + " above its member record's";
    return out;
  } else if (message->info.epoch < record_epoch) {
    // Written by an earlier run of the node, and put back: the held epoch never goes back.
    out.reason = RedisRefusal::message_stale_epoch;
    out.why = stale_epoch_why("a summary", node, message->info.epoch, record_epoch) +
              " (its member record's)";
  } else if (auto stale = stale_summary(*lane, message->info)) {
    out.reason = RedisRefusal::message_stale_epoch;
    out.why = std::move(*stale);
  } else if (want_full && !is_full(message->kind)) {
    out.why = "not a full summary";
  } else {
    const SummaryResponse r = apply(*lane, *message);
    out.full = is_full(message->kind);
    out.sequence = message->info.sequence;
    out.outcome = r.status == 204   ? BusMessage::Outcome::applied
                  : r.status == 409 ? BusMessage::Outcome::gap
                                    : BusMessage::Outcome::refused;
    out.reason = RedisRefusal::message_unusable;
    out.why = r.body.substr(0, std::min<std::size_t>(r.body.find('\n'), 200));
    return out;
  }
  counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
  return out;
}

awaitable<std::optional<std::string>> SummaryExchange::probe(std::string address,
                                                             std::string& why) {
  PeerHttpRequest req{
      beast::http::verb::get, address,     config_.cluster.peer_listen.port, kSummaryPath, {},
      config_.node.id,        kSummaryType};
  // The id is what the probe learns: any node's signature will do.
  req.to = std::string(protocol::kAnyReceiver);
  req.secret = config_.cluster.secret;
  auto [ec, reply] = co_await peer_http_exchange(
      executor_, std::move(req), config_.cluster.peer_timeout_ms, tls_client_.get());
  if (ec) {
    why = ec.message();
    co_return std::nullopt;
  }
  if (reply.status != 200) {
    why = "answered " + std::to_string(reply.status);
    co_return std::nullopt;
  }
  if (!reply.verified) {
    why = "answer not authenticated: " + reply.auth_error.message();
    co_return std::nullopt;
  }
  // Any node id will do here: the tag proves the cluster's secret signed it.
  const std::string& secret = config_.cluster.secret;
  auto message = protocol::decode(
      reply.body, [&secret](std::string_view) { return std::optional<std::string>(secret); },
      limits(reply.body, max_fingerprints_));
  if (!message || !is_full(message->kind)) {
    why = message ? "not a full summary" : "summary rejected: " + message.error().message();
    co_return std::nullopt;
  }
  co_return message->info.node_id;
}

std::optional<std::string> SummaryExchange::stale_summary(PeerLane& lane,
                                                          const protocol::SummaryInfo& info) const {
  std::lock_guard lock(table_.mutex());
  const protocol::PeerSummary& held = lane.peer->link.summary;
  if (!held.has_state() || info.epoch >= held.epoch()) return std::nullopt;
  return stale_epoch_why("a summary", info.node_id, info.epoch, held.epoch());
}

void SummaryExchange::refuse_invalidations(const SummaryRequest& request, const std::string& why) {
  invalidations_.count_refused();
  if (PeerLane* lane = lane_of(request.from)) {
    lane->peer->counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
  }
  if (const auto held = invalidation_reject_log_.admit(std::chrono::steady_clock::now())) {
    log_.warn("peer invalidations from " + request.remote + " (node " + printable_id(request.from) +
              ") rejected: " + why +
              (*held > 0 ? " (and " + std::to_string(*held) + " more rejected)" : ""));
  }
}

SummaryResponse SummaryExchange::receive_invalidations(const SummaryRequest& request) {
  auto batch = protocol::decode_invalidations(
      request.body, [this](std::string_view id) { return secret_for(id); });
  if (!batch) {
    refuse_invalidations(request, batch.error().message());
    const bool auth = batch.error() == protocol::InvalidationErrc::bad_tag ||
                      batch.error() == protocol::InvalidationErrc::unknown_node;
    return answer(auth ? 401 : 400, batch.error().message() + "\n");
  }
  // The secret is the cluster's: the signer must be the node the head named.
  if (batch->node_id != request.from) {
    const std::string why = "the batch is signed by node " + printable_id(batch->node_id);
    refuse_invalidations(request, why);
    return answer(400, why + "\n");
  }
  PeerLane* lane = lane_of(batch->node_id);  // decode found its secret: a peer
  if (lane == nullptr) return answer(401, "not a peer of this node\n");
  const std::uint64_t held = lane->sequence.epoch();
  const protocol::SequenceDecision d = lane->sequence.accept(*batch);
  if (d.verdict == protocol::SequenceVerdict::stale_epoch) {
    // Answered 409 with the reason, not with an ack: an ack of the batch's
    // epoch would be a statement about sequences of a run this node no longer
    // follows, and one of the held epoch is for another process; neither is
    // progress, and the sender (a replayer, or a peer whose clock went back)
    // should see a refusal.
    const std::string why =
        stale_epoch_why("an invalidation batch", batch->node_id, batch->epoch, held);
    invalidations_.count_refused();
    lane->peer->counters.messages_rejected.fetch_add(1, std::memory_order_relaxed);
    listener_.refused(Refusal::stale_epoch,
                      request.remote + " (node " + printable_id(request.from) + ")", why);
    return answer(409, why + "\n");
  }
  const std::int64_t now = wall_ms();
  if (d.verdict == protocol::SequenceVerdict::new_epoch) {
    // The sender restarted: what it assigned and we never got is lost with it,
    // so nothing stored before now is proven current.
    invalidations_.raise_unproven_before(now);
    log_.info("peer " + batch->node_id + " restarted (invalidation epoch " +
              std::to_string(batch->epoch) + "): objects stored before now revalidate");
  } else if (d.verdict == protocol::SequenceVerdict::missed) {
    invalidations_.raise_unproven_before(static_cast<std::int64_t>(*batch->missed_until_ms) +
                                         kClockAllowanceMs);
    log_.info("peer " + batch->node_id + " dropped invalidations this node never got: objects " +
              "stored before its time " + std::to_string(*batch->missed_until_ms) +
              " ms (+30 s) revalidate");
  }
  std::size_t applied = 0;
  if (d.verdict != protocol::SequenceVerdict::gap &&
      d.verdict != protocol::SequenceVerdict::duplicate) {
    for (std::size_t e = d.skip; e < batch->entries.size(); ++e) {
      const protocol::Invalidation& inv = batch->entries[e];
      // Each key that goes leaves the counting filter: the next summary drops it.
      if (inv.kind == protocol::InvalidationKind::url) {
        store_.remove(inv.value);
      } else if (inv.kind == protocol::InvalidationKind::tag) {
        store_.remove_tag(inv.value);  // through the tag index (docs/store.md)
      } else {
        store_.remove_prefix(inv.value);  // through the key names, in key order
      }
      ++applied;
    }
  }
  invalidations_.count_received(applied);
  if (log_.enabled(LogLevel::debug)) {
    log_.debug("invalidations " + std::to_string(batch->first_seq) + ".." +
               std::to_string(batch->last_seq()) + " from " + batch->node_id + ": " +
               protocol::to_string(d.verdict) + ", acked through " +
               std::to_string(d.acked_through));
  }
  auto ack = protocol::encode_invalidation_ack(
      {config_.node.id, batch->node_id, batch->epoch, d.acked_through}, config_.cluster.secret);
  if (!ack) {
    encode_failed("an invalidation ack", ack.error());
    return answer(500, "cannot encode the acknowledgement\n");
  }
  return SummaryResponse{200, {}, kInvalidationsType, std::move(ack).value()};
}

void SummaryExchange::wake_invalidation_senders() {
  for (const auto& lane : lanes_) {
    if (lane && lane->invalidation_idle) lane->invalidation_timer.cancel();
  }
}

awaitable<void> SummaryExchange::invalidation_loop(std::shared_ptr<PeerLane> lane) {
  Peer& peer = *lane->peer;
  asio::steady_timer& timer = lane->invalidation_timer;
  milliseconds retry{0};
  std::uint64_t last_first = 0;  // where the previous batch started
  const auto failed = [&](const std::string& why) {
    retry = std::clamp(retry * 2, kFirstRetry, kMaxRetry);
    if (const auto held = invalidation_send_log_.admit(std::chrono::steady_clock::now())) {
      log_.warn("invalidations to peer " + peer.config.id + ": " + why + "; retry in " +
                std::to_string(retry.count()) + " ms" +
                (*held > 0 ? " (and " + std::to_string(*held) + " more failures)" : ""));
    }
  };
  while (!stopped_ && !lane->removed) {
    auto batch = invalidations_.batch_for(peer.config.id);
    if (!batch) {
      // Until a purge wakes it (wake_invalidation_senders), stop() or remove_lane().
      lane->invalidation_idle = true;
      timer.expires_after(std::chrono::hours(24));
      co_await timer.async_wait(use_nothrow);
      lane->invalidation_idle = false;
      continue;
    }
    const bool again = batch->first_seq == last_first;
    last_first = batch->first_seq;
    auto encoded = protocol::encode_invalidations(*batch, config_.cluster.secret);
    if (!encoded) {
      encode_failed("invalidations for peer " + peer.config.id, encoded.error());
      failed("not sent: " + encoded.error().message());
      timer.expires_after(retry);
      co_await timer.async_wait(use_nothrow);
      continue;
    }
    std::string body = std::move(encoded).value();
    PeerHttpRequest req{beast::http::verb::post, peer.config.host, peer.config.peer_port,
                        kInvalidationsPath,      std::move(body),  config_.node.id,
                        kInvalidationsType};
    req.to = peer.config.id;
    req.secret = config_.cluster.secret;
    auto [ec, reply] = co_await peer_http_exchange(
        executor_, std::move(req), config_.cluster.peer_timeout_ms, tls_client_.get());
    if (stopped_ || lane->removed) co_return;
    if (ec) {
      failed(ec.message());
    } else if (reply.status != 200) {
      // The answer's first line at most: a peer's text goes into our log.
      failed("answered " + std::to_string(reply.status) + " " +
             reply.body.substr(0, std::min<std::size_t>(reply.body.find('\n'), 200)));
    } else if (!reply.verified) {
      // An ack captured from an earlier batch would claim this one's delivery.
      invalidations_.count_refused();
      answer_refused(peer, "invalidations", reply.auth_error);
      failed("answer not authenticated: " + reply.auth_error.message());
    } else {
      invalidations_.count_sent(peer.config.id, batch->entries.size());
      auto ack = protocol::decode_invalidation_ack(
          reply.body, [this](std::string_view id) { return secret_for(id); });
      if (!ack) {
        invalidations_.count_refused();
        failed("ack rejected: " + ack.error().message());
      } else if (ack->node_id != peer.config.id) {
        invalidations_.count_refused();
        failed("ack signed by node " + printable_id(ack->node_id));
      } else if (const auto outcome = invalidations_.ack(*ack);
                 outcome != protocol::AckOutcome::accepted) {
        failed(std::string("ack refused: ") + protocol::to_string(outcome));
      } else if (again && ack->acked_through < batch->first_seq) {
        failed("no progress: acknowledged through " + std::to_string(ack->acked_through) +
               " twice");
      } else {
        // Accepted, lower than the batch or not: a resend request goes at once.
        retry = milliseconds{0};
        continue;
      }
    }
    timer.expires_after(retry);
    co_await timer.async_wait(use_nothrow);
  }
}

}  // namespace sumcache::daemon
