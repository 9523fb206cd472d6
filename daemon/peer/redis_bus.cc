#include "daemon/peer/redis_bus.h"

#include <algorithm>

#include "daemon/peer/peer_service.h"
#include "daemon/peer/summary_exchange.h"
#include "daemon/redis/redis_backoff.h"

namespace sumcache::daemon {

namespace {

using std::chrono::milliseconds;

// XREAD's COUNT: entries per stream per call (docs/peers.md).
constexpr const char* kReadCount = "128";
// A link that is down is looked at again after this (it reconnects on its own).
constexpr milliseconds kDownPause{200};

bool any_error(const std::vector<RedisReply>& replies) {
  for (const auto& r : replies) {
    if (r.is_error()) return true;
    if (r.type == RedisReply::Type::array && any_error(r.elements)) return true;
  }
  return false;
}

std::string first_error(const std::vector<RedisReply>& replies) {
  for (const auto& r : replies) {
    if (r.is_error()) return r.str.substr(0, 200);
    if (r.type == RedisReply::Type::array) {
      if (auto e = first_error(r.elements); !e.empty()) return e;
    }
  }
  return {};
}

RedisOptions link_options(const config::RedisConfig& c, const config::Endpoint& server,
                          asio::ssl::context* tls) {
  RedisOptions o;
  o.endpoint = {server.address, server.port};
  o.username = c.username;
  o.password = c.password;
  o.tls = tls;
  o.server_name = c.server_name;
  o.connect_timeout = c.connect_timeout_ms;
  o.command_timeout = c.command_timeout_ms;
  // Back within the member expiry after an outage, or this node is dropped and added again.
  o.backoff_max = redis_backoff_max(c.member_expiry_ms);
  return o;
}

}  // namespace

RedisBus::RedisBus(asio::any_io_executor executor, const config::Config& config, Logger& log,
                   PeerTable& table, SummaryExchange& exchange, RedisBusHooks hooks)
    : executor_(executor),
      config_(config),
      log_(log),
      table_(table),
      exchange_(exchange),
      hooks_(std::move(hooks)),
      keys_(config.cluster.redis.key_prefix),
      heartbeat_timer_(executor) {}

RedisBus::~RedisBus() = default;

bool RedisBus::prepare(std::string& failed) {
  const config::RedisConfig& c = config_.cluster.redis;
  if (c.tls) {
    tls_ = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
    error_code ec;
    if (c.ca_file.empty()) {
      tls_->set_default_verify_paths(ec);
    } else {
      tls_->load_verify_file(c.ca_file.string(), ec);
    }
    if (ec) {
      failed = "cluster.redis.ca_file " + c.ca_file.string() + ": " + ec.message();
      return false;
    }
    if (!c.cert_file.empty()) {
      tls_->use_certificate_chain_file(c.cert_file.string(), ec);
      if (ec) {
        failed = "cluster.redis.cert_file " + c.cert_file.string() + ": " + ec.message();
        return false;
      }
      tls_->use_private_key_file(c.key_file.string(), asio::ssl::context::pem, ec);
      if (ec) {
        failed = "cluster.redis.key_file " + c.key_file.string() + ": " + ec.message();
        return false;
      }
    }
    tls_->set_verify_mode(asio::ssl::verify_peer);
  }
  for (const auto& server : c.servers) {
    const std::string address = server.address.find(':') != std::string::npos
                                    ? "[" + server.address + "]:" + std::to_string(server.port)
                                    : server.address + ":" + std::to_string(server.port);
    servers_.push_back(
        std::make_unique<Server>(executor_, link_options(c, server, tls_.get()), log_, address));
  }
  if (servers_.empty()) {
    failed = "cluster.redis.servers is empty";
    return false;
  }
  own_server_ = redis_shard(config_.node.id, servers_.size());
  return true;
}

void RedisBus::start() {
  for (std::size_t s = 0; s < servers_.size(); ++s) {
    Server& server = *servers_[s];
    server.commands.on_connect([this, s] {
      // Redis may have lost this node's keys (a restart without persistence):
      // the full goes again, and readers start over from it.
      if (s == own_server_) full_.stale = true;
      if (s == 0) heartbeat_timer_.cancel();  // (re)joins at once
      servers_[s]->wake.cancel();
    });
    server.reads.on_connect([this, s] {
      for (auto& [id, reading] : readings_) {
        if (reading.server == s) rebootstrap(reading);
      }
      servers_[s]->wake.cancel();
    });
    server.commands.start();
    server.reads.start();
    asio::co_spawn(executor_, read_loop(s), asio::detached);
  }
  asio::co_spawn(executor_, heartbeat_loop(), asio::detached);
}

void RedisBus::stop() {
  stopped_ = true;
  heartbeat_timer_.cancel();
  for (auto& server : servers_) {
    server->wake.cancel();
    server->reads.stop();
    server->commands.stop();
  }
}

MemberRecord RedisBus::own_record() const {
  const auto& c = config_.cluster;
  MemberRecord r;
  r.id = config_.node.id;
  r.host = c.redis.advertise_host.empty() ? c.peer_listen.address : c.redis.advertise_host;
  r.http_port = config_.listen.empty() ? 0 : config_.listen.front().port;
  r.peer_port = c.peer_listen.port;
  r.icp_port = c.icp_port;
  r.object_port = c.object_listen.port;
  r.weight = 1;
  r.epoch = exchange_.epoch();
  return r;
}

void RedisBus::outage(const std::string& what, const std::string& why) {
  outages_.fetch_add(1, std::memory_order_relaxed);
  if (const auto held = outage_log_.admit(LogLimiter::Clock::now())) {
    log_.warn("redis: " + what + ": " + why + "; serving on with the summaries held" +
              (*held > 0 ? " (and " + std::to_string(*held) + " more failures)" : ""));
  }
}

void RedisBus::refused(RedisRefusal reason, const std::string& who, const std::string& why) {
  refused_[static_cast<std::size_t>(reason)].fetch_add(1, std::memory_order_relaxed);
  if (const auto held = refused_log_.admit(LogLimiter::Clock::now())) {
    log_.warn("redis: refused " + std::string(to_string(reason)) + " of node " + who + ": " + why +
              (*held > 0 ? " (and " + std::to_string(*held) + " more refused)" : ""));
  }
}

// --- publisher --------------------------------------------------------------

bool RedisBus::full_wanted(std::uint64_t sequence) const {
  return redis_full_due(full_, sequence, config_.cluster.redis.stream_length);
}

void RedisBus::publish(std::uint64_t sequence, std::shared_ptr<const std::string> delta,
                       bool delta_missing,
                       const std::function<std::shared_ptr<const std::string>()>& full) {
  if (sequence == 0 || stopped_) return;
  Server& server = *servers_[own_server_];
  if (!server.commands.up()) {
    // What is not written now is lost to the readers: a full goes once it is back.
    full_.stale = true;
    if (delta) outage("publish", "the server is away");
    return;
  }
  if (delta_missing) full_.stale = true;
  const std::string id = config_.node.id;
  std::vector<RedisCommand> batch;
  if (delta) {
    batch.push_back({"XADD", keys_.deltas(id), "MAXLEN", "~",
                     std::to_string(config_.cluster.redis.stream_length), stream_id(sequence), "m",
                     *delta});
  }
  if (redis_full_due(full_, sequence, config_.cluster.redis.stream_length)) {
    if (auto message = full()) {
      if (reset_stream_) {
        // A new epoch restarts sequences: its stream starts empty, in one step
        // with the full, so no reader finds the old stream after the new full.
        batch = {{"MULTI"}, {"DEL", keys_.deltas(id)}, {"SET", keys_.full(id), *message}, {"EXEC"}};
        reset_stream_ = false;
      } else {
        batch.push_back({"SET", keys_.full(id), *message});
      }
      full_ = {false, sequence};
    }
  }
  if (batch.empty()) return;
  outbox_.push_back(std::move(batch));
  if (!writing_) {
    writing_ = true;
    asio::co_spawn(executor_, write_loop(), asio::detached);
  }
}

awaitable<void> RedisBus::write_loop() {
  Server& server = *servers_[own_server_];
  while (!outbox_.empty() && !stopped_) {
    std::vector<RedisCommand> batch = std::move(outbox_.front());
    outbox_.erase(outbox_.begin());
    const bool xadd = batch.front().front() == "XADD";
    const bool full = batch.back().front() == "SET" || batch.back().front() == "EXEC";
    auto [ec, replies] = co_await server.commands.pipeline(std::move(batch));
    if (stopped_) break;
    if (!ec && !any_error(replies)) {
      if (xadd) published_delta_.fetch_add(1, std::memory_order_relaxed);
      if (full) published_full_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    // The stream now lacks a delta readers may wait for: they start over from
    // the next full. An XADD refused (its ID not above the stream's top: keys
    // left by another run) also empties the stream then.
    full_.stale = true;
    if (!ec && xadd) reset_stream_ = true;
    outbox_.clear();
    outage("publish", ec ? ec.message() : first_error(replies));
  }
  writing_ = false;
}

RedisBusStats RedisBus::stats() const {
  RedisBusStats s;
  for (const auto& server : servers_) {
    const RedisLinkStats c = server->commands.stats();
    const RedisLinkStats r = server->reads.stats();
    RedisServerStats out;
    out.server = server->name;
    out.up = c.up && r.up;
    out.connects = c.connects + r.connects;
    out.connect_failures = c.connect_failures + r.connect_failures;
    out.commands = c.traffic.commands + r.traffic.commands;
    out.bytes_sent = c.traffic.bytes_sent + r.traffic.bytes_sent;
    out.bytes_received = c.traffic.bytes_received + r.traffic.bytes_received;
    s.servers.push_back(std::move(out));
  }
  s.members = members_.load(std::memory_order_relaxed);
  s.published_full = published_full_.load(std::memory_order_relaxed);
  s.published_delta = published_delta_.load(std::memory_order_relaxed);
  s.read_full = read_full_.load(std::memory_order_relaxed);
  s.read_delta = read_delta_.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < kRedisRefusals; ++i) {
    s.refused[i] = refused_[i].load(std::memory_order_relaxed);
  }
  s.resyncs = resyncs_.load(std::memory_order_relaxed);
  s.outages = outages_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace sumcache::daemon
