#pragma once
// One connection to a Redis server (docs/peers.md, "Redis transport"): TCP or
// TLS through Asio, commands formatted and replies parsed by hiredis's RESP
// code (docs/dependencies.md says why not its I/O). Callers on the
// connection's executor may issue commands concurrently: they are written in
// order and pipelined, and each gets its own replies. Every operation has a
// deadline; one that passes closes the connection, failing everything pending.

#include <boost/asio/ssl.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "daemon/net/asio.h"
#include "daemon/redis/redis_backoff.h"
#include "daemon/redis/redis_error.h"
#include "daemon/redis/redis_reply.h"

namespace sumcache::daemon {

using RedisCommand = std::vector<std::string>;  // argv: {"XADD", key, id, field, value}

struct RedisEndpoint {
  std::string host;  // IP literal or name
  std::uint16_t port = 6379;
};

struct RedisOptions {
  RedisEndpoint endpoint;
  std::string username;  // with password: AUTH username password
  std::string password;  // empty: no AUTH
  // Non-null: TLS, the server's certificate verified for server_name (or the
  // endpoint's host when empty). Owned by the caller; outlives the connection.
  asio::ssl::context* tls = nullptr;
  std::string server_name;
  std::chrono::milliseconds connect_timeout{1000};  // resolve, connect, handshake, AUTH, PING
  std::chrono::milliseconds command_timeout{1000};  // write to last reply, per call
  // RedisLink's reconnect back-off cap (redis_backoff_max of the member expiry).
  std::chrono::milliseconds backoff_max = kRedisBackoffMax;
  RedisReplyLimits limits;
};

// Counted over the connection's life (and summed over reconnects by RedisLink).
struct RedisTraffic {
  std::uint64_t commands = 0;        // commands written
  std::uint64_t bytes_sent = 0;      // RESP bytes written
  std::uint64_t bytes_received = 0;  // RESP bytes read
};

class RedisConnection : public std::enable_shared_from_this<RedisConnection> {
 public:
  RedisConnection(asio::any_io_executor executor, RedisOptions options);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Resolves, connects, handshakes, authenticates and PINGs within
  // connect_timeout. An AUTH refused is an error naming it (redis_errc).
  awaitable<error_code> connect();
  // Writes `commands` in one write and reads one reply per command, within
  // command_timeout + extra (a blocking command's own wait: XREAD BLOCK).
  // A reply of type error is a reply, not an error_code.
  awaitable<std::tuple<error_code, std::vector<RedisReply>>> pipeline(
      std::vector<RedisCommand> commands, std::chrono::milliseconds extra = {});
  awaitable<std::tuple<error_code, RedisReply>> command(RedisCommand args,
                                                        std::chrono::milliseconds extra = {});
  bool is_open() const;
  void close();  // pending calls complete with operation_aborted
  const RedisTraffic& traffic() const { return *traffic_; }
  const RedisOptions& options() const { return options_; }

 private:
  friend class RedisLink;
  // Completes when the connection closes, with what closed it (RedisLink's watch).
  awaitable<error_code> wait_closed();

  // One connected session; its read and write loops hold it, so it outlives
  // this object until they end. A new connect() starts a new one.
  struct Impl;
  asio::any_io_executor executor_;
  std::shared_ptr<Impl> impl_;
  RedisOptions options_;
  std::shared_ptr<RedisTraffic> traffic_;  // shared with the sessions' loops
};

}  // namespace sumcache::daemon
