#include "daemon/peer/icp_agent.h"

#include <sys/socket.h>

#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <unordered_map>

#include "daemon/log/log_limiter.h"
#include "protocol/icp_message.h"

namespace sumcache::daemon {
namespace {

using protocol::IcpMessage;
using protocol::IcpOpcode;

// A dual-stack socket reports IPv4 senders as ::ffff:a.b.c.d; peers are compared as IPv4.
udp::endpoint unmapped(const udp::endpoint& e) {
  if (e.address().is_v6() && e.address().to_v6().is_v4_mapped()) {
    return {asio::ip::make_address_v4(asio::ip::v4_mapped, e.address().to_v6()), e.port()};
  }
  return e;
}

std::string describe(const udp::endpoint& e) {
  const std::string host = e.address().to_string();
  return (e.address().is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(e.port());
}

}  // namespace

struct IcpAgent::Core {
  // One query in flight: the caller's coroutine waits on `timer`, which the agent
  // cancels from its own thread (by posting to `executor`) when the query completes.
  struct Waiter {
    Waiter(asio::any_io_executor ex, std::string u)
        : executor(ex), timer(std::move(ex)), url(std::move(u)) {}
    asio::any_io_executor executor;
    asio::steady_timer timer;  // touched on `executor` only
    const std::string url;
    std::uint32_t request_number = 0;
    IcpQueryState state;  // under Core::mutex
  };
  using WaiterPtr = std::shared_ptr<Waiter>;

  Core(asio::any_io_executor ex, udp::endpoint b, std::vector<IcpPeer> p,
       std::function<bool(std::string_view)> l, Logger& lg)
      : executor(std::move(ex)),
        bind(b),
        peers(std::move(p)),
        lookup(std::move(l)),
        log(lg),
        peer_counts(peers.size()) {
    for (auto& peer : peers) {
      peer.endpoint = unmapped(peer.endpoint);
      if (peer.source) peer.source = unmapped({*peer.source, 0}).address();
    }
  }

  static awaitable<IcpQueryResult> run_query(std::shared_ptr<Core> core, std::string url,
                                             std::chrono::milliseconds timeout, std::uint64_t mask);
  std::optional<std::uint64_t> begin(const WaiterPtr& w, std::uint64_t mask,
                                     std::vector<std::uint8_t>& datagram);
  void send_query(const WaiterPtr& w, std::uint64_t to, std::span<const std::uint8_t> datagram);
  IcpQueryResult finish(Waiter& w);
  void forget(const Waiter& w);
  void complete(std::unordered_map<std::uint32_t, WaiterPtr>::iterator it);
  void stop();

  void handle(std::span<const std::uint8_t> datagram, const udp::endpoint& from,
              std::vector<std::uint8_t>& reply_buffer);
  void answer(const IcpMessage& query, const udp::endpoint& from, std::optional<std::size_t> peer,
              std::vector<std::uint8_t>& reply_buffer);
  void take_reply(const IcpMessage& reply, const udp::endpoint& from, std::size_t peer);
  std::error_code send(const udp::endpoint& to, std::span<const std::uint8_t> datagram);

  std::optional<std::size_t> find_peer(const udp::endpoint& from) const;
  IcpAtomicCounters& counts(std::optional<std::size_t> peer) {
    return peer ? peer_counts[*peer] : others;
  }
  std::string name(const udp::endpoint& from, std::optional<std::size_t> peer) const {
    return peer ? "peer " + peers[*peer].id + " (" + describe(from) + ")" : describe(from);
  }
  void log_limited(LogLimiter& limiter, LogLevel level, const std::string& line);

  // Fixed once constructed.
  const asio::any_io_executor executor;
  const udp::endpoint bind;
  std::vector<IcpPeer> peers;
  const std::function<bool(std::string_view)> lookup;
  Logger& log;
  std::vector<IcpAtomicCounters> peer_counts;
  IcpAtomicCounters others;  // senders that are not peers
  LogLimiter rejected_log;
  LogLimiter stranger_log;
  LogLimiter denied_log;   // queries we answered DENIED
  LogLimiter refused_log;  // peers' DENIED replies to ours
  LogLimiter send_log;

  std::atomic<bool> nofetch{false};  // refuse_fetches(): draining

  mutable std::mutex mutex;
  std::unordered_map<std::uint32_t, WaiterPtr> pending;
  std::uint32_t next_request = 1;
  bool running = false;
  udp::endpoint bound;  // set by start(), before running

  // Sends go straight to the descriptor from any thread (a non-blocking sendto), so a
  // query never waits for the agent's thread; closing takes this exclusively.
  std::shared_mutex fd_mutex;
  int fd = -1;
  bool v6_socket = false;
};

// The socket and its receive buffer: the agent's executor alone touches them.
struct IcpAgent::Io {
  Io(std::shared_ptr<Core> c, const asio::any_io_executor& ex) : core(std::move(c)), socket(ex) {}
  ~Io() { close(); }
  void close();
  static awaitable<void> receive_loop(std::shared_ptr<Io> io);

  std::shared_ptr<Core> core;
  udp::socket socket;
  // One octet over the cap: a datagram that fills it was too large (and truncated).
  std::array<std::uint8_t, protocol::kIcpMaxDatagram + 1> buffer{};
  std::vector<std::uint8_t> reply;
};

// ---- Our queries ---------------------------------------------------------------------

awaitable<IcpQueryResult> IcpAgent::Core::run_query(std::shared_ptr<Core> core, std::string url,
                                                    std::chrono::milliseconds timeout,
                                                    std::uint64_t mask) {
  auto waiter = std::make_shared<Waiter>(co_await asio::this_coro::executor, std::move(url));
  waiter->timer.expires_after(timeout);
  std::vector<std::uint8_t> datagram;
  const std::optional<std::uint64_t> to = core->begin(waiter, mask, datagram);
  if (!to) co_return waiter->state.result;  // nobody to ask: never registered
  // Unregisters even when the frame is destroyed mid-wait (its io_context went away).
  struct Registration {
    Core& core;
    const Waiter& waiter;
    ~Registration() { core.forget(waiter); }
  } registration{*core, *waiter};
  core->send_query(waiter, *to, datagram);
  co_await waiter->timer.async_wait(use_nothrow);  // cancelled by complete(), or the timeout
  co_return core->finish(*waiter);
}

// Registers the query and encodes its datagram; returns the peers to send it to, or
// nothing when the query is already complete (no peer selected, a URL ICP cannot
// carry, or the agent stopped).
std::optional<std::uint64_t> IcpAgent::Core::begin(const WaiterPtr& w, std::uint64_t mask,
                                                   std::vector<std::uint8_t>& datagram) {
  std::lock_guard lock(mutex);
  w->state = start_icp_query(running ? mask : 0, peers.size());
  if (!running) w->state.result.timed_out = w->state.result.stopped = true;
  if (w->state.done) return std::nullopt;
  std::uint32_t number = 0;
  do {
    number = next_request++;
  } while (number == 0 || pending.contains(number));
  const IcpMessage query{.opcode = IcpOpcode::query, .request_number = number, .url = w->url};
  if (protocol::encode_icp(query, datagram)) {  // over kIcpMaxUrl, or a NUL inside
    w->state = start_icp_query(0, 0);
    return std::nullopt;
  }
  w->request_number = number;
  pending.emplace(number, w);
  return w->state.awaiting;
}

void IcpAgent::Core::send_query(const WaiterPtr& w, std::uint64_t to,
                                std::span<const std::uint8_t> datagram) {
  for (std::size_t i = 0; i < peers.size(); ++i) {
    if ((to & (std::uint64_t{1} << i)) == 0) continue;
    if (const auto ec = send(peers[i].endpoint, datagram)) {
      bump(peer_counts[i].send_errors);
      log_limited(send_log, LogLevel::warn,
                  "icp: cannot send a query to peer " + peers[i].id + ": " + ec.message());
      std::lock_guard lock(mutex);
      const auto it = pending.find(w->request_number);
      if (record_icp_send_failure(w->state, i) && it != pending.end()) complete(it);
      continue;
    }
    bump(peer_counts[i].queries_sent);
    bump(peer_counts[i].bytes_sent, datagram.size());
  }
}

// Wakes the waiting coroutine on its own executor. Called under the lock, so that
// a Registration cannot unregister (and its io_context go away) during the post.
void IcpAgent::Core::complete(std::unordered_map<std::uint32_t, WaiterPtr>::iterator it) {
  WaiterPtr w = std::move(it->second);
  pending.erase(it);
  asio::post(w->executor, [w] { w->timer.cancel(); });
}

IcpQueryResult IcpAgent::Core::finish(Waiter& w) {
  std::lock_guard lock(mutex);
  const std::uint64_t silent = expire_icp_query(w.state);
  for (std::size_t i = 0; i < peers.size(); ++i) {
    if (silent & (std::uint64_t{1} << i)) bump(peer_counts[i].unanswered);
  }
  return w.state.result;
}

void IcpAgent::Core::forget(const Waiter& w) {
  std::lock_guard lock(mutex);
  const auto it = pending.find(w.request_number);
  if (it != pending.end() && it->second.get() == &w) pending.erase(it);
}

void IcpAgent::Core::stop() {
  std::lock_guard lock(mutex);
  running = false;
  while (!pending.empty()) {
    const auto it = pending.begin();
    const std::uint64_t silent = expire_icp_query(it->second->state);
    it->second->state.result.stopped = true;
    for (std::size_t i = 0; i < peers.size(); ++i) {
      if (silent & (std::uint64_t{1} << i)) bump(peer_counts[i].unanswered);
    }
    complete(it);
  }
}

// ---- Datagrams in ---------------------------------------------------------------------

awaitable<void> IcpAgent::Io::receive_loop(std::shared_ptr<Io> io) {
  udp::endpoint from;
  for (;;) {
    auto [ec, n] =
        co_await io->socket.async_receive_from(asio::buffer(io->buffer), from, use_nothrow);
    if (ec == asio::error::operation_aborted || !io->socket.is_open()) co_return;
    if (ec) {
      // ENOMEM and the like: back off briefly rather than spin.
      io->core->log_limited(io->core->rejected_log, LogLevel::warn,
                            "icp: receive failed: " + ec.message());
      asio::steady_timer pause(io->socket.get_executor(), std::chrono::milliseconds(10));
      co_await pause.async_wait(use_nothrow);
      continue;
    }
    io->core->handle(std::span(io->buffer.data(), n), unmapped(from), io->reply);
  }
}

void IcpAgent::Core::handle(std::span<const std::uint8_t> datagram, const udp::endpoint& from,
                            std::vector<std::uint8_t>& reply_buffer) {
  const std::optional<std::size_t> peer = find_peer(from);
  IcpAtomicCounters& c = counts(peer);
  bump(c.bytes_received, datagram.size());
  const auto message = protocol::decode_icp(datagram);
  if (!message) {
    bump(c.rejected);
    // A peer's garbage is an operator's problem; anyone else's is noise.
    log_limited(rejected_log, peer ? LogLevel::warn : LogLevel::debug,
                "icp: dropped a datagram of " + std::to_string(datagram.size()) + " bytes from " +
                    name(from, peer) + ": " + message.error().message());
    return;
  }
  if (message->opcode == IcpOpcode::query) {
    answer(*message, from, peer, reply_buffer);
  } else if (peer) {
    take_reply(*message, from, *peer);
  } else {
    bump(c.rejected);
    log_limited(stranger_log, LogLevel::debug,
                std::string("icp: ignored ") + to_string(message->opcode) + " from non-peer " +
                    describe(from));
  }
}

// RFC 2186: a reply copies the query's request number and URL. Squid answers a
// sender its icp_access does not allow with ICP_OP_DENIED; ours allows the peers.
void IcpAgent::Core::answer(const IcpMessage& query, const udp::endpoint& from,
                            std::optional<std::size_t> peer,
                            std::vector<std::uint8_t>& reply_buffer) {
  IcpAtomicCounters& c = counts(peer);
  bump(c.queries_received);
  // RFC 2186 ICP_OP_MISS_NOFETCH: do not send us the request; Squid answers it when
  // it would not fetch the miss (store rebuilding, hit-only mode). Draining, we would
  // not even serve a hit: a HIT would send the peer to a closed listener.
  const IcpOpcode opcode = !peer                                     ? IcpOpcode::denied
                           : nofetch.load(std::memory_order_relaxed) ? IcpOpcode::miss_nofetch
                           : lookup(query.url)                       ? IcpOpcode::hit
                                                                     : IcpOpcode::miss;
  if (!peer) {
    // Warned: a Squid that lists this node stops asking it once over 95% of 100+
    // replies are DENIED, so a sender missing from peers[] is worth an operator's look.
    log_limited(denied_log, LogLevel::warn,
                "icp: denied a query from " + describe(from) +
                    ", not a configured peer (peers[].host and icp_port, or "
                    "icp_source_address)");
  }
  const IcpMessage reply{
      .opcode = opcode, .request_number = query.request_number, .url = query.url};
  if (protocol::encode_icp(reply, reply_buffer)) return;  // cannot fail: the URL was decoded
  if (const auto ec = send(from, reply_buffer)) {
    bump(c.send_errors);
    log_limited(send_log, LogLevel::warn,
                "icp: cannot reply to " + name(from, peer) + ": " + ec.message());
    return;
  }
  bump(c.bytes_sent, reply_buffer.size());
  bump(opcode == IcpOpcode::hit      ? c.hits_sent
       : opcode == IcpOpcode::denied ? c.denied_sent
                                     : c.misses_sent);
}

void IcpAgent::Core::take_reply(const IcpMessage& reply, const udp::endpoint& from,
                                std::size_t peer) {
  IcpAtomicCounters& c = peer_counts[peer];
  bool url_differs = false;
  {
    std::lock_guard lock(mutex);
    const auto it = pending.find(reply.request_number);
    if (it == pending.end()) {
      bump(c.late_replies);
      return;
    }
    url_differs = reply.url != it->second->url;
    if (!url_differs) {
      const bool hit = reply.opcode == IcpOpcode::hit;
      switch (record_icp_reply(it->second->state, peer, hit)) {
        case IcpReplyEffect::unexpected:
          bump(c.late_replies);
          return;
        case IcpReplyEffect::completed:
          complete(it);
          break;
        case IcpReplyEffect::counted:
          break;
      }
      bump(hit                                 ? c.hits_received
           : reply.opcode == IcpOpcode::denied ? c.denied_received
                                               : c.misses_received);
    }
  }
  if (!url_differs) {
    if (reply.opcode == IcpOpcode::denied) {
      log_limited(refused_log, LogLevel::warn,
                  "icp: " + name(from, peer) +
                      " answered DENIED: its access rules (Squid: icp_access) refuse this node");
    }
    return;
  }
  bump(c.rejected);
  log_limited(rejected_log, LogLevel::warn,
              std::string("icp: ") + to_string(reply.opcode) + " from " + name(from, peer) +
                  " does not echo the URL of query " + std::to_string(reply.request_number));
}

// ---- Plumbing -------------------------------------------------------------------------

std::error_code IcpAgent::Core::send(const udp::endpoint& to,
                                     std::span<const std::uint8_t> datagram) {
  udp::endpoint target = to;
  if (v6_socket && to.address().is_v4()) {
    target = {asio::ip::make_address_v6(asio::ip::v4_mapped, to.address().to_v4()), to.port()};
  }
  std::shared_lock lock(fd_mutex);
  if (fd < 0) return std::make_error_code(std::errc::bad_file_descriptor);
  // Non-blocking: a full send buffer drops the datagram, as the network might.
  const ssize_t n = ::sendto(fd, datagram.data(), datagram.size(), MSG_DONTWAIT | MSG_NOSIGNAL,
                             target.data(), static_cast<socklen_t>(target.size()));
  if (n < 0) return {errno, std::system_category()};
  return {};
}

std::optional<std::size_t> IcpAgent::Core::find_peer(const udp::endpoint& from) const {
  for (std::size_t i = 0; i < peers.size(); ++i) {
    const IcpPeer& p = peers[i];
    if (p.endpoint == from) return i;
    if (p.source && *p.source == from.address() && p.endpoint.port() == from.port()) return i;
  }
  return std::nullopt;
}

void IcpAgent::Core::log_limited(LogLimiter& limiter, LogLevel level, const std::string& line) {
  if (!log.enabled(level)) return;
  const auto held_back = limiter.admit(LogLimiter::Clock::now());
  if (!held_back) return;
  log.log(level, *held_back == 0
                     ? line
                     : line + " (" + std::to_string(*held_back) + " similar lines held back)");
}

void IcpAgent::Io::close() {
  {
    std::unique_lock lock(core->fd_mutex);
    core->fd = -1;
  }
  error_code ignored;
  socket.close(ignored);
}

// ---- IcpAgent -------------------------------------------------------------------------

IcpAgent::IcpAgent(asio::any_io_executor executor, udp::endpoint bind, std::vector<IcpPeer> peers,
                   std::function<bool(std::string_view url)> lookup, Logger& log)
    : core_(std::make_shared<Core>(executor, bind, std::move(peers), std::move(lookup), log)),
      io_(std::make_shared<Io>(core_, executor)) {}

IcpAgent::~IcpAgent() { stop(); }

std::error_code IcpAgent::start() {
  Core& core = *core_;
  const std::string where = "icp: cannot bind udp " + describe(core.bind);
  if (core.peers.size() > kIcpMaxPeers) {
    core.log.error(where + ": more than 64 peers");
    return std::make_error_code(std::errc::argument_out_of_domain);
  }
  if (io_->socket.is_open()) return error_code(asio::error::already_open);  // start() runs once
  error_code ec;
  io_->socket.open(core.bind.protocol(), ec);
  if (!ec) io_->socket.bind(core.bind, ec);
  if (!ec) io_->socket.non_blocking(true, ec);
  udp::endpoint bound;
  if (!ec) bound = io_->socket.local_endpoint(ec);
  if (ec) {
    core.log.error(where + ": " + ec.message());
    io_->close();
    return ec;
  }
  {
    std::unique_lock lock(core.fd_mutex);
    core.fd = io_->socket.native_handle();
    core.v6_socket = core.bind.address().is_v6();
  }
  {
    std::lock_guard lock(core.mutex);
    core.bound = bound;
    core.running = true;
  }
  core.log.info("icp: listening on udp " + describe(bound) + " for " +
                std::to_string(core.peers.size()) + " peers");
  asio::co_spawn(core.executor, IcpAgent::Io::receive_loop(io_), asio::detached);
  return {};
}

void IcpAgent::stop() {
  core_->stop();
  asio::post(core_->executor, [io = io_] { io->close(); });
}

void IcpAgent::refuse_fetches() { core_->nofetch.store(true, std::memory_order_relaxed); }

udp::endpoint IcpAgent::local_endpoint() const {
  std::lock_guard lock(core_->mutex);
  return core_->bound;
}

awaitable<IcpQueryResult> IcpAgent::query(std::string url, std::chrono::milliseconds timeout,
                                          std::uint64_t mask) {
  return Core::run_query(core_, std::move(url), timeout, mask);
}

std::vector<IcpAgent::PeerCounters> IcpAgent::counters() const {
  std::vector<PeerCounters> out(core_->peers.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].id = core_->peers[i].id;
    add_icp_counters(core_->peer_counts[i], out[i]);
  }
  return out;
}

IcpAgent::PeerCounters IcpAgent::totals() const {
  PeerCounters total;
  for (const auto& c : core_->peer_counts) add_icp_counters(c, total);
  add_icp_counters(core_->others, total);
  return total;
}

}  // namespace sumcache::daemon
