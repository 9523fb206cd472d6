// RedisBus's reading (docs/peers.md, "Redis transport"): per server, a
// blocking XREAD over the streams of the live peers whose keys are there,
// each entry decoded and applied through the exchange; a peer is bootstrapped
// (and resynchronised after a gap) from its full summary.

#include "daemon/peer/redis_bus.h"
#include "daemon/peer/summary_exchange.h"

namespace sumcache::daemon {

namespace {

using std::chrono::milliseconds;

constexpr const char* kReadCount = "128";
// A link that is down is looked at again after this (it reconnects by itself).
constexpr milliseconds kDownPause{200};

}  // namespace

void RedisBus::rebootstrap(Reading& reading) {
  reading.bootstrapped = false;
  reading.retry_at = {};
  ++reading.generation;  // what an XREAD in flight brings for it is dropped
}

void RedisBus::start_bootstraps(std::size_t server, SteadyTime now) {
  for (auto& [id, reading] : readings_) {
    if (reading.server != server || reading.bootstrapped || reading.bootstrapping ||
        now < reading.retry_at) {
      continue;
    }
    reading.bootstrapping = true;
    asio::co_spawn(executor_, bootstrap(id, reading.generation), asio::detached);
  }
}

awaitable<void> RedisBus::bootstrap(std::string id, std::uint64_t generation) {
  const std::size_t s = redis_shard(id, servers_.size());
  // Named, not a braced list inside the co_await: GCC 12 miscompiles those.
  RedisCommand get = {"GET", keys_.full(id)};
  auto [ec, reply] = co_await servers_[s]->commands.command(std::move(get));
  if (stopped_) co_return;
  const auto it = readings_.find(id);
  if (it == readings_.end()) co_return;  // it left meanwhile
  Reading& reading = it->second;
  reading.bootstrapping = false;
  if (reading.generation != generation) {
    servers_[s]->wake.cancel();  // asked again meanwhile: the reader starts it now
    co_return;
  }
  const auto now = std::chrono::steady_clock::now();
  // Whatever failed, the next try waits a block's length (the reader's pace).
  reading.retry_at = now + config_.cluster.redis.block_ms;
  if (ec) {
    outage("full summary of " + id, ec.message());
    co_return;
  }
  if (reply.is_nil()) co_return;  // none written yet: it publishes one soon
  if (reply.type != RedisReply::Type::string) {
    refused(RedisRefusal::reply_malformed, id, "its full summary key holds no string");
    co_return;
  }
  const BusMessage m = exchange_.apply_from_bus(id, reply.str, true, reading.epoch);
  if (m.outcome != BusMessage::Outcome::applied) {
    if (m.outcome == BusMessage::Outcome::refused || m.outcome == BusMessage::Outcome::gap) {
      refused(m.reason, id, "full summary: " + m.why);
    }
    co_return;
  }
  read_full_.fetch_add(1, std::memory_order_relaxed);
  reading.bootstrapped = true;
  reading.applied_at = now;
  reading.sequence = m.sequence;
  reading.cursor = stream_id(m.sequence);
  servers_[s]->wake.cancel();  // an idle reader reads its stream now
}

void RedisBus::read_entry(RedisStreamEntry& entry, std::uint64_t generation) {
  const auto it = readings_.find(entry.node);
  if (it == readings_.end()) return;
  Reading& reading = it->second;
  // Read before a bootstrap that started meanwhile: that one decides where to go on from.
  if (reading.generation != generation || !reading.bootstrapped) return;
  reading.cursor = entry.id;
  if (!entry.sequence) {
    exchange_.count_rejected(entry.node);
    refused(RedisRefusal::entry_malformed, entry.node, entry.why);
    return;
  }
  if (*entry.sequence <= reading.sequence) return;  // held already (the full covers it)
  const BusMessage m = exchange_.apply_from_bus(entry.node, entry.message, false, reading.epoch);
  switch (m.outcome) {
    case BusMessage::Outcome::applied:
      (m.full ? read_full_ : read_delta_).fetch_add(1, std::memory_order_relaxed);
      reading.sequence = m.sequence;
      reading.applied_at = std::chrono::steady_clock::now();
      break;
    case BusMessage::Outcome::gap:
      // A delta that does not follow what is held (trimmed away, or a write
      // lost while Redis was away): start over from the full.
      resyncs_.fetch_add(1, std::memory_order_relaxed);
      rebootstrap(reading);
      break;
    case BusMessage::Outcome::refused:
      refused(m.reason, entry.node, "stream entry " + entry.id + ": " + m.why);
      break;
    case BusMessage::Outcome::ahead:
      // Its new full is read once the next heartbeat has its new record.
      rebootstrap(reading);
      break;
    case BusMessage::Outcome::not_peer:
      break;
  }
}

awaitable<void> RedisBus::read_loop(std::size_t s) {
  Server& server = *servers_[s];
  const milliseconds block = config_.cluster.redis.block_ms;
  while (!stopped_) {
    const auto now = std::chrono::steady_clock::now();
    if (!server.reads.up() || !server.commands.up()) {
      server.wake.expires_after(kDownPause);
      co_await server.wake.async_wait(use_nothrow);
      continue;
    }
    start_bootstraps(s, now);
    std::map<std::string, std::string> streams;  // key -> node id
    RedisCommand xread = {"XREAD",  "COUNT", kReadCount, "BLOCK", std::to_string(block.count()),
                          "STREAMS"};
    std::vector<std::string> cursors;
    std::map<std::string, std::uint64_t> generations;
    for (const auto& [id, reading] : readings_) {
      if (reading.server != s || !reading.bootstrapped) continue;
      const std::string key = keys_.deltas(id);
      streams.emplace(key, id);
      xread.push_back(key);
      cursors.push_back(reading.cursor);
      generations.emplace(id, reading.generation);
    }
    if (streams.empty()) {
      // Nobody to read: until a bootstrap lands (it wakes this) or a block passes.
      server.wake.expires_after(block);
      co_await server.wake.async_wait(use_nothrow);
      continue;
    }
    xread.insert(xread.end(), cursors.begin(), cursors.end());
    auto [ec, reply] = co_await server.reads.command(std::move(xread), block);
    if (stopped_) co_return;
    if (ec) {
      // The link may not know yet that its connection closed: a pause, not a
      // spin (a call on a closed connection fails without waiting).
      outage("read", ec.message());
      server.wake.expires_after(kDownPause);
      co_await server.wake.async_wait(use_nothrow);
      continue;
    }
    if (reply.is_error()) {
      // A key of the wrong type (someone wrote over a stream): start those
      // peers over from their full, after a block's pause.
      refused(RedisRefusal::reply_malformed, server.name, "XREAD: " + reply.str.substr(0, 200));
      for (auto& [id, reading] : readings_) {
        if (reading.server == s) rebootstrap(reading);
      }
      server.wake.expires_after(block);
      co_await server.wake.async_wait(use_nothrow);
      continue;
    }
    RedisXread read = parse_xread(std::move(reply), streams);
    if (!read.error.empty()) {
      refused(RedisRefusal::reply_malformed, server.name, "XREAD: " + read.error);
      for (auto& [id, reading] : readings_) {
        if (reading.server == s) rebootstrap(reading);
      }
      continue;
    }
    for (RedisStreamEntry& entry : read.entries) {
      const auto g = generations.find(entry.node);
      if (g != generations.end()) read_entry(entry, g->second);
    }
  }
}

}  // namespace sumcache::daemon
