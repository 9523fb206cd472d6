#include "daemon/redis/redis_link.h"

#include <random>
#include <utility>

#include "daemon/log/log_limiter.h"
#include "daemon/redis/redis_backoff.h"

namespace sumcache::daemon {
namespace {

// An outage is logged once per this interval, with the lines held back meanwhile.
constexpr std::chrono::seconds kOutageLogInterval{10};

}  // namespace

struct RedisLink::Impl {
  Impl(asio::any_io_executor ex, RedisOptions o, Logger& l, std::string n)
      : executor(std::move(ex)),
        options(std::move(o)),
        log(l),
        name(std::move(n)),
        backoff(executor),
        rng(std::random_device{}()) {}

  asio::any_io_executor executor;
  const RedisOptions options;
  Logger& log;
  const std::string name;
  std::function<void()> handler;
  asio::steady_timer backoff;
  std::mt19937_64 rng;
  LogLimiter outage_log{kOutageLogInterval};

  // Executor only.
  std::shared_ptr<RedisConnection> connection;
  RedisTraffic counted;  // of `connection`, already added to the totals below

  // Any thread (stats()).
  std::atomic<bool> stopped{false};
  std::atomic<bool> up{false};
  std::atomic<std::uint64_t> connects{0}, connect_failures{0}, disconnects{0}, command_failures{0},
      commands{0}, bytes_sent{0}, bytes_received{0};

  // Adds what `c` moved since the last count to the link's totals.
  void count_traffic(const RedisConnection& c) {
    if (&c != connection.get()) return;  // an older connection, counted when it closed
    const RedisTraffic& t = c.traffic();
    commands.fetch_add(t.commands - counted.commands, std::memory_order_relaxed);
    bytes_sent.fetch_add(t.bytes_sent - counted.bytes_sent, std::memory_order_relaxed);
    bytes_received.fetch_add(t.bytes_received - counted.bytes_received, std::memory_order_relaxed);
    counted = t;
  }

  void log_outage(const std::string& what) {
    if (stopped.load()) return;
    const auto held = outage_log.admit(LogLimiter::Clock::now());
    if (!held) return;
    std::string line = name + ": " + what;
    if (*held > 0) line += " (" + std::to_string(*held) + " more since the last line)";
    log.warn(line);
  }

  static awaitable<void> run(std::shared_ptr<Impl> self) {
    unsigned attempt = 0;      // of the backoff: since the last good connect
    std::uint64_t failed = 0;  // connect attempts that failed since then
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    while (!self->stopped.load()) {
      auto connection = std::make_shared<RedisConnection>(self->executor, self->options);
      self->connection = connection;
      self->counted = {};
      const error_code ec = co_await connection->connect();
      self->count_traffic(*connection);
      if (self->stopped.load()) break;
      if (!ec) {
        self->connects.fetch_add(1, std::memory_order_relaxed);
        self->up.store(true);
        if (self->connects.load() > 1 || failed > 0) {
          self->log.info(self->name + ": connected again after " + std::to_string(failed) +
                         " failed attempts");
        } else {
          self->log.info(self->name + ": connected");
        }
        attempt = 0;
        failed = 0;
        if (self->handler) self->handler();
        const error_code why = co_await connection->wait_closed();
        self->up.store(false);
        self->count_traffic(*connection);
        if (self->stopped.load()) break;
        self->disconnects.fetch_add(1, std::memory_order_relaxed);
        self->log_outage("connection lost (" + why.message() + "); reconnecting");
      } else {
        self->connect_failures.fetch_add(1, std::memory_order_relaxed);
        ++failed;
        self->log_outage("cannot connect (" + ec.message() + "); retrying");
      }
      self->backoff.expires_after(
          redis_backoff(attempt++, unit(self->rng), self->options.backoff_max));
      co_await self->backoff.async_wait(use_nothrow);
    }
    self->up.store(false);
  }
};

RedisLink::RedisLink(asio::any_io_executor executor, RedisOptions options, Logger& log,
                     std::string name)
    : impl_(std::make_shared<Impl>(std::move(executor), std::move(options), log, std::move(name))) {
}

RedisLink::~RedisLink() { stop(); }

void RedisLink::start() { asio::co_spawn(impl_->executor, Impl::run(impl_), asio::detached); }

void RedisLink::stop() {
  if (impl_->stopped.exchange(true)) return;
  impl_->up.store(false);
  // The loop and the connection belong to the executor: close them there.
  asio::post(impl_->executor, [impl = impl_] {
    impl->backoff.cancel();
    if (impl->connection) impl->connection->close();
  });
}

void RedisLink::on_connect(std::function<void()> handler) { impl_->handler = std::move(handler); }

awaitable<std::tuple<error_code, std::vector<RedisReply>>> RedisLink::pipeline(
    std::vector<RedisCommand> commands, std::chrono::milliseconds extra) {
  auto self = impl_;
  auto connection = self->connection;
  if (!self->up.load() || !connection || !connection->is_open()) {
    self->command_failures.fetch_add(1, std::memory_order_relaxed);
    co_return std::tuple{error_code(RedisErrc::not_connected), std::vector<RedisReply>{}};
  }
  auto result = co_await connection->pipeline(std::move(commands), extra);
  self->count_traffic(*connection);
  if (std::get<0>(result)) self->command_failures.fetch_add(1, std::memory_order_relaxed);
  co_return result;
}

awaitable<std::tuple<error_code, RedisReply>> RedisLink::command(RedisCommand args,
                                                                 std::chrono::milliseconds extra) {
  std::vector<RedisCommand> commands;
  commands.push_back(std::move(args));
  auto [ec, replies] = co_await pipeline(std::move(commands), extra);
  if (ec) co_return std::tuple{ec, RedisReply{}};
  co_return std::tuple{ec, std::move(replies.at(0))};
}

bool RedisLink::up() const { return impl_->up.load(); }

RedisLinkStats RedisLink::stats() const {
  RedisLinkStats s;
  s.up = impl_->up.load();
  s.connects = impl_->connects.load(std::memory_order_relaxed);
  s.connect_failures = impl_->connect_failures.load(std::memory_order_relaxed);
  s.disconnects = impl_->disconnects.load(std::memory_order_relaxed);
  s.command_failures = impl_->command_failures.load(std::memory_order_relaxed);
  s.traffic.commands = impl_->commands.load(std::memory_order_relaxed);
  s.traffic.bytes_sent = impl_->bytes_sent.load(std::memory_order_relaxed);
  s.traffic.bytes_received = impl_->bytes_received.load(std::memory_order_relaxed);
  return s;
}

}  // namespace sumcache::daemon
