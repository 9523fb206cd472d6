#pragma once
// A RedisConnection kept up: connected on start, reconnected after any error
// with backoff (100 ms doubling to RedisOptions::backoff_max, at most 5 s,
// with jitter: redis_backoff.h), its outage logged once
// per interval with a count and counted. Calls while it is down fail at once
// with RedisErrc::not_connected: a caller never waits on a Redis that is away
// (the node serves from its cache and the summaries it holds meanwhile).

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "daemon/log/logger.h"
#include "daemon/net/asio.h"
#include "daemon/redis/redis_connection.h"

namespace sumcache::daemon {

struct RedisLinkStats {
  bool up = false;
  std::uint64_t connects = 0;          // successful connects (the first included)
  std::uint64_t connect_failures = 0;  // attempts that failed
  std::uint64_t disconnects = 0;       // an up connection lost (error or timeout)
  std::uint64_t command_failures = 0;  // calls that got an error_code (not_connected included)
  RedisTraffic traffic;                // summed over connections
};

class RedisLink {
 public:
  // `name` names the link in logs ("redis 10.0.0.5:6379 (summaries)").
  RedisLink(asio::any_io_executor executor, RedisOptions options, Logger& log, std::string name);
  ~RedisLink();
  void start();  // connects, and keeps connecting
  void stop();
  // Called on the executor after every successful (re)connect: a reader
  // re-bootstraps, a publisher republishes its full summary.
  void on_connect(std::function<void()> handler);
  awaitable<std::tuple<error_code, std::vector<RedisReply>>> pipeline(
      std::vector<RedisCommand> commands, std::chrono::milliseconds extra = {});
  awaitable<std::tuple<error_code, RedisReply>> command(RedisCommand args,
                                                        std::chrono::milliseconds extra = {});
  bool up() const;
  RedisLinkStats stats() const;  // any thread

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace sumcache::daemon
