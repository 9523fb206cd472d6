#pragma once
// The Redis transport (docs/peers.md, "Redis transport"): with
// cluster.transport "redis", this node publishes each summary once to Redis
// and reads its peers' from there; membership is kept there too. Runs on the
// peer thread's io_context, beside the SummaryExchange whose decode and apply
// path every message read goes through (its HMAC tag checked, its node id the
// stream's). Per server of cluster.redis.servers, two links: commands (writes,
// GETs, heartbeats) and blocking reads (XREAD BLOCK). Redis away: this node
// serves on with the summaries it holds (expiring as they would), nobody
// joins or leaves, and every step catches up once Redis is back.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "config/config.h"
#include "daemon/log/log_limiter.h"
#include "daemon/log/logger.h"
#include "daemon/net/asio.h"
#include "daemon/peer/peer_table.h"
#include "daemon/peer/redis_bus_plan.h"
#include "daemon/peer/redis_bus_stats.h"
#include "daemon/peer/redis_keys.h"
#include "daemon/redis/redis_link.h"

namespace sumcache::daemon {

class SummaryExchange;
struct MembershipResult;

// What the bus asks of the peer service (on the peer thread).
struct RedisBusHooks {
  // Adds a live member as a peer (PeerSource::redis), by check_join's rules.
  std::function<MembershipResult(const config::PeerConfig&)> join;
  // Removes a member that left (expired in Redis).
  std::function<void(const std::string& id, const std::string& why)> leave;
};

class RedisBus {
 public:
  RedisBus(asio::any_io_executor executor, const config::Config& config, Logger& log,
           PeerTable& table, SummaryExchange& exchange, RedisBusHooks hooks);
  ~RedisBus();
  RedisBus(const RedisBus&) = delete;
  RedisBus& operator=(const RedisBus&) = delete;

  // Loads the TLS files when cluster.redis.tls; false with `failed` naming the file.
  bool prepare(std::string& failed);
  void start();
  void stop();

  // The exchange's round, on the peer thread. Whether the round making
  // `sequence` must give a full summary (fingerprint tables make it then).
  bool full_wanted(std::uint64_t sequence) const;
  // This node's summary at `sequence`: `delta` (null when none this round),
  // `delta_missing` when a delta was due and could not be encoded; `full`
  // gives the full summary at `sequence` (null when it cannot now).
  void publish(std::uint64_t sequence, std::shared_ptr<const std::string> delta, bool delta_missing,
               const std::function<std::shared_ptr<const std::string>()>& full);

  RedisBusStats stats() const;  // any thread

 private:
  // One Redis server: its links, and its reader's idle wait.
  struct Server {
    Server(asio::any_io_executor executor, const RedisOptions& options, Logger& log,
           const std::string& address)
        : name(address),
          commands(executor, options, log, "redis " + address + " (commands)"),
          reads(executor, options, log, "redis " + address + " (reads)"),
          wake(executor) {}
    std::string name;  // "host:port"
    RedisLink commands;
    RedisLink reads;
    asio::steady_timer wake;  // cut short when a peer of this server is ready to read
  };
  // A peer whose summaries this node reads: where its stream is read from.
  struct Reading {
    std::size_t server = 0;
    std::uint64_t epoch = 0;       // its member record's
    bool bootstrapped = false;     // its full applied; its stream read after it
    bool bootstrapping = false;    // a GET in flight
    std::uint64_t generation = 0;  // bumped by each bootstrap: older reads are dropped
    std::uint64_t sequence = 0;    // last applied
    std::string cursor = "0-0";    // the last entry ID read
    SteadyTime retry_at{};         // no full to GET yet, or refused: not before this
    SteadyTime applied_at{};       // its last message applied (a full or a delta)
    SteadyTime record_at{};        // its last member record of `epoch` (or higher) read
  };

  awaitable<void> heartbeat_loop();
  awaitable<void> heartbeat();
  void apply_membership(RedisMembershipPlan plan, SteadyTime now);
  // A live record whose epoch is below the one held (docs/peers.md, "Redis
  // transport"): refused while the held epoch's node still writes its record;
  // after a member expiry without one, the peer is dropped to be added afresh.
  // True: the record is not to be taken this heartbeat.
  bool stale_record(const MemberRecord& record, SteadyTime now,
                    std::set<std::string>& still_refused);
  awaitable<void> reap(std::vector<RedisReap> stale);
  awaitable<void> read_loop(std::size_t server);
  awaitable<void> bootstrap(std::string id, std::uint64_t generation);
  void start_bootstraps(std::size_t server, SteadyTime now);
  void rebootstrap(Reading& reading);
  void read_entry(RedisStreamEntry& entry, std::uint64_t generation);
  awaitable<void> write_loop();
  void refused(RedisRefusal reason, const std::string& who, const std::string& why);
  // Redis away for `what`: counted, logged once per interval with the count.
  void outage(const std::string& what, const std::string& why);
  MemberRecord own_record() const;

  asio::any_io_executor executor_;
  const config::Config& config_;
  Logger& log_;
  PeerTable& table_;
  SummaryExchange& exchange_;
  RedisBusHooks hooks_;
  RedisKeys keys_;
  std::unique_ptr<asio::ssl::context> tls_;
  std::vector<std::unique_ptr<Server>> servers_;
  std::size_t own_server_ = 0;
  asio::steady_timer heartbeat_timer_;
  bool stopped_ = false;

  // Publisher (peer thread).
  RedisFullState full_;
  bool reset_stream_ = true;  // the next full also DELs the stream (a new epoch)
  std::vector<std::vector<RedisCommand>> outbox_;
  bool writing_ = false;

  // Membership and reading (peer thread).
  std::map<std::string, Reading, std::less<>> readings_;
  std::set<std::string> refused_records_;  // refused once each, while they stay
  SteadyTime membership_up_since_{};
  bool membership_up_ = false;

  // Counters, any thread.
  std::atomic<std::uint64_t> members_{0};
  std::atomic<std::uint64_t> published_full_{0};
  std::atomic<std::uint64_t> published_delta_{0};
  std::atomic<std::uint64_t> read_full_{0};
  std::atomic<std::uint64_t> read_delta_{0};
  std::array<std::atomic<std::uint64_t>, kRedisRefusals> refused_{};
  std::atomic<std::uint64_t> resyncs_{0};
  std::atomic<std::uint64_t> outages_{0};
  LogLimiter outage_log_{std::chrono::seconds(10)};
  LogLimiter refused_log_;
};

}  // namespace sumcache::daemon
