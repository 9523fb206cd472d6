// RedisBus's membership (docs/peers.md, "Redis transport"): every
// heartbeat_ms, on the first server, one pipeline writes this node's record
// and heartbeat and reads both hashes and the server's clock; the plan says
// who is live, who is stale, and which records are refused.

#include <algorithm>

#include "daemon/peer/peer_service.h"
#include "daemon/peer/redis_bus.h"
#include "daemon/peer/summary_exchange.h"

namespace sumcache::daemon {

namespace {

constexpr const char* kHeartbeatScript = R"(local t = redis.call('TIME')
local ms = t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ms)
return ms)";

constexpr const char* kReapScript = R"(local s = redis.call('HGET', KEYS[2], ARGV[1])
if (s == false and ARGV[2] == '') or s == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
return 0)";

// The member's peer as the table holds it, compared field by field: a change
// of address or ports is another peer to talk to.
bool same_peer(const config::PeerConfig& a, const config::PeerConfig& b) {
  return a.host == b.host && a.http_port == b.http_port && a.peer_port == b.peer_port &&
         a.icp_port == b.icp_port && a.object_port == b.object_port && a.weight == b.weight;
}

}  // namespace

awaitable<void> RedisBus::heartbeat_loop() {
  while (!stopped_) {
    co_await heartbeat();
    if (stopped_) co_return;
    heartbeat_timer_.expires_after(config_.cluster.redis.heartbeat_ms);
    co_await heartbeat_timer_.async_wait(use_nothrow);
  }
}

awaitable<void> RedisBus::heartbeat() {
  Server& server = *servers_.front();
  // The first connect is still under way at start: not an outage yet.
  const RedisLinkStats link = server.commands.stats();
  if (!link.up && link.connects == 0 && link.connect_failures == 0) co_return;
  const auto record = encode_member(own_record(), config_.cluster.secret);
  if (!record) {
    outage("heartbeat", "cannot sign this node's member record");
    co_return;
  }
  std::vector<RedisCommand> batch = {
      {"EVAL", kHeartbeatScript, "2", keys_.members(), keys_.seen(), config_.node.id, *record},
      {"HGETALL", keys_.members()},
      {"HGETALL", keys_.seen()},
      {"TIME"}};
  auto [ec, replies] = co_await server.commands.pipeline(std::move(batch));
  if (stopped_) co_return;
  if (ec || replies.size() != 4 || replies[0].is_error()) {
    // Nobody joins or leaves while Redis is away; the summaries held expire as they would.
    membership_up_ = false;
    outage("heartbeat", ec ? ec.message() : replies.empty() ? "no reply" : replies[0].str);
    co_return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!membership_up_) {
    membership_up_ = true;
    membership_up_since_ = now;
  }
  auto members = hash_pairs(std::move(replies[1]));
  auto seen = hash_pairs(std::move(replies[2]));
  const auto now_ms = time_ms(replies[3]);
  if (!members || !seen || !now_ms) {
    refused(RedisRefusal::reply_malformed, "(membership)", "HGETALL or TIME of the wrong shape");
    co_return;
  }
  RedisMembershipInput in{
      std::move(*members), std::move(*seen),      *now_ms, config_.cluster.redis.member_expiry_ms,
      config_.node.id,     config_.cluster.secret};
  RedisMembershipPlan plan = plan_redis_membership(in);
  if (!plan.reap.empty()) asio::co_spawn(executor_, reap(std::move(plan.reap)), asio::detached);
  apply_membership(std::move(plan), now);
}

awaitable<void> RedisBus::reap(std::vector<RedisReap> stale) {
  std::vector<RedisCommand> batch;
  for (const auto& r : stale) {
    batch.push_back({"EVAL", kReapScript, "2", keys_.members(), keys_.seen(), r.id, r.seen});
  }
  auto [ec, replies] = co_await servers_.front()->commands.pipeline(std::move(batch));
  if (ec) co_return;  // the next heartbeat's plan reaps them again
  for (std::size_t i = 0; i < replies.size() && i < stale.size(); ++i) {
    if (replies[i].type == RedisReply::Type::integer && replies[i].integer == 1) {
      log_.info("redis: member " + stale[i].id + " reaped (no heartbeat for " +
                std::to_string(config_.cluster.redis.member_expiry_ms.count()) + " ms)");
    }
  }
}

bool RedisBus::stale_record(const MemberRecord& record, SteadyTime now,
                            std::set<std::string>& still_refused) {
  const auto it = readings_.find(record.id);
  if (it == readings_.end() || record.epoch >= it->second.epoch) return false;
  Reading& reading = it->second;
  const std::string key = "epoch " + std::to_string(record.epoch) + " of " + record.id;
  if (now - reading.record_at < config_.cluster.redis.member_expiry_ms) {
    // The node of the held epoch wrote its record within an expiry: this
    // older one was put back (a replay). Refused, counted once while it stays;
    // the member stays live with the state held.
    if (!refused_records_.contains(key)) {
      refused(RedisRefusal::member_stale_epoch, record.id,
              "member record with epoch " + std::to_string(record.epoch) +
                  ", below the epoch held " + std::to_string(reading.epoch) +
                  ": a replay, or that node restarted with its clock set back (it is taken "
                  "once no record of the held epoch has been read for member_expiry_ms)");
    }
    still_refused.insert(key);
    return true;
  }
  // No record of the held epoch for a member expiry: its node is gone, and
  // the one heartbeating now restarted with its clock set back. The held state
  // goes with the peer; the next heartbeat adds it afresh.
  log_.warn("redis: member " + record.id + " went back from epoch " +
            std::to_string(reading.epoch) + " to " + std::to_string(record.epoch) +
            " and no record of the higher one was read for " +
            std::to_string(config_.cluster.redis.member_expiry_ms.count()) +
            " ms: taken as a restart with its clock set back; check that node's clock");
  const auto slot = table_.find(record.id);
  if (slot) {
    const auto peer = table_.get(*slot);
    if (peer && peer->source == PeerSource::redis) hooks_.leave(record.id, "its epoch went back");
  }
  readings_.erase(it);
  return true;
}

void RedisBus::apply_membership(RedisMembershipPlan plan, SteadyTime now) {
  members_.store(plan.live.size() + 1, std::memory_order_relaxed);
  // Each refused record counted once while it stays (a heartbeat a second would recount it).
  std::set<std::string> still_refused;
  for (auto& r : plan.refused) {
    if (!refused_records_.contains(r.record)) refused(r.reason, r.id, "member record: " + r.why);
    still_refused.insert(std::move(r.record));
  }

  const auto stale_after =
      std::max(config_.cluster.summary_expiry_ms / 2, 2 * config_.cluster.update_max_interval_ms);
  std::set<std::string, std::less<>> live;
  for (const MemberRecord& record : plan.live) {
    live.insert(record.id);
    if (stale_record(record, now, still_refused)) continue;
    const config::PeerConfig wanted = member_peer(record);
    auto slot = table_.find(record.id);
    if (slot) {
      const auto peer = table_.get(*slot);
      if (peer && peer->source == PeerSource::redis && !same_peer(peer->config, wanted)) {
        hooks_.leave(record.id, "its member record changed");
        readings_.erase(record.id);
        slot.reset();
      }
    }
    if (!slot) {
      if (hooks_.join(wanted).status != 201) continue;  // refused: logged and counted there
    }
    auto [it, added] = readings_.try_emplace(record.id);
    Reading& reading = it->second;
    reading.record_at = now;
    if (added) {
      reading.server = redis_shard(record.id, servers_.size());
      reading.epoch = record.epoch;
    } else if (reading.epoch != record.epoch) {
      // It restarted: its sequences start over, read from its new full.
      reading.epoch = record.epoch;
      rebootstrap(reading);
    } else if (reading.bootstrapped && now - reading.applied_at > stale_after) {
      // A live member publishes at least every update_max_interval_ms: a stream
      // silent for longer is read past where the node writes (an entry with a
      // higher ID put there by another writer). Start over from its full.
      resyncs_.fetch_add(1, std::memory_order_relaxed);
      rebootstrap(reading);
    }
  }
  refused_records_ = std::move(still_refused);
  // Leaves wait until Redis has been reachable for a member expiry: after an
  // outage (or a Redis restarted empty) every node needs a heartbeat to be seen again.
  const bool leaves_allowed = now - membership_up_since_ >= config_.cluster.redis.member_expiry_ms;
  for (auto it = readings_.begin(); it != readings_.end();) {
    const bool in_table = table_.find(it->first).has_value();
    if (!in_table || (leaves_allowed && !live.contains(it->first))) {
      if (in_table) {
        const auto peer = table_.get(*table_.find(it->first));
        if (peer && peer->source == PeerSource::redis) {
          hooks_.leave(it->first,
                       "no heartbeat in redis for " +
                           std::to_string(config_.cluster.redis.member_expiry_ms.count()) + " ms");
        }
      }
      it = readings_.erase(it);
    } else {
      ++it;
    }
  }
  for (std::size_t s = 0; s < servers_.size(); ++s) start_bootstraps(s, now);
}

}  // namespace sumcache::daemon
