#include "daemon/redis/redis_connection.h"

#include <hiredis/hiredis.h>
#include <netinet/tcp.h>
#include <openssl/err.h>

#include <boost/asio/ssl/host_name_verification.hpp>
#include <deque>
#include <utility>

#include "daemon/net/connect_by_name.h"
#include "daemon/redis/redis_reply_reader.h"

namespace sumcache::daemon {
namespace {

using Clock = std::chrono::steady_clock;

// A caller's commands in flight: the replies gathered for it, and its timer,
// which is both its deadline and its wake-up (cancelled when it is done).
struct Call {
  Call(const asio::any_io_executor& executor, std::size_t n, Clock::time_point deadline)
      : timer(executor, deadline), expected(n) {}
  asio::steady_timer timer;
  std::size_t expected;
  std::vector<RedisReply> replies;
  error_code ec;
  bool done = false;
};

// RESP for one command (hiredis's formatter: binary-safe, lengths given).
bool append_command(std::string& out, const RedisCommand& command) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  argv.reserve(command.size());
  lengths.reserve(command.size());
  for (const auto& arg : command) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  char* formatted = nullptr;
  const int n = redisFormatCommandArgv(&formatted, static_cast<int>(argv.size()), argv.data(),
                                       lengths.data());
  if (n < 0 || formatted == nullptr) return false;
  out.append(formatted, static_cast<std::size_t>(n));
  redisFreeCommand(formatted);
  return true;
}

}  // namespace

struct RedisConnection::Impl {
  using Tls = asio::ssl::stream<tcp::socket>;
  static constexpr std::size_t kReadSize = 64 * 1024;

  Impl(const asio::any_io_executor& ex, const RedisOptions& o, std::shared_ptr<RedisTraffic> t)
      : executor(ex),
        traffic(std::move(t)),
        plain(ex),
        reader(o.limits),
        closed(ex, Clock::time_point::max()) {}

  asio::any_io_executor executor;
  std::shared_ptr<RedisTraffic> traffic;
  tcp::socket plain;
  std::unique_ptr<Tls> tls;  // set: plain was moved into it
  RedisReplyReader reader;
  std::deque<std::shared_ptr<Call>> pending;  // in the order their commands were written
  std::string out;                            // formatted, not yet handed to a write
  bool writing = false;
  bool open = false;
  bool aborted = false;  // close() came while connecting
  std::vector<char> in = std::vector<char>(kReadSize);
  asio::steady_timer closed;  // never expires; cancelled when the session closes
  error_code close_reason;

  tcp::socket& lowest() { return tls ? tls->next_layer() : plain; }

  // Closes the session and completes every call still waiting with `ec`.
  void fail_all(error_code ec) {
    if (!close_reason) close_reason = ec;
    open = false;
    error_code ignored;
    lowest().close(ignored);
    for (auto& call : pending) {
      call->ec = ec;
      call->done = true;
      call->timer.cancel();
    }
    pending.clear();
    closed.cancel();
  }

  awaitable<std::tuple<error_code, std::vector<RedisReply>>> call(
      std::vector<RedisCommand> commands, Clock::time_point deadline, std::shared_ptr<Impl> self) {
    if (!open)
      co_return std::tuple{error_code(asio::error::not_connected), std::vector<RedisReply>{}};
    if (commands.empty()) co_return std::tuple{error_code{}, std::vector<RedisReply>{}};
    std::string formatted;
    for (const auto& command : commands)
      if (!append_command(formatted, command))
        co_return std::tuple{error_code(asio::error::no_memory), std::vector<RedisReply>{}};
    auto c = std::make_shared<Call>(executor, commands.size(), deadline);
    pending.push_back(c);
    out += formatted;
    traffic->commands += commands.size();
    if (!writing) {
      writing = true;
      asio::co_spawn(executor, write_loop(self), asio::detached);
    }
    co_await c->timer.async_wait(use_nothrow);
    // Not done when the timer fired: the deadline passed. The replies still
    // owed would pair with the wrong callers, so the whole session goes.
    if (!c->done) fail_all(asio::error::timed_out);
    co_return std::tuple{c->ec, std::move(c->replies)};
  }

  // Hands the next reply to the oldest call; false when nobody asked for one.
  bool deliver(RedisReply&& reply) {
    if (pending.empty()) return false;
    auto& c = pending.front();
    c->replies.push_back(std::move(reply));
    if (c->replies.size() == c->expected) {
      c->done = true;
      c->timer.cancel();
      pending.pop_front();
    }
    return true;
  }

  static awaitable<void> write_loop(std::shared_ptr<Impl> self) {
    while (self->open && !self->out.empty()) {
      std::string chunk;
      chunk.swap(self->out);
      auto [ec, n] = self->tls ? co_await asio::async_write(*self->tls, asio::buffer(chunk),
                                                            transfer_all_at_once, use_nothrow)
                               : co_await asio::async_write(self->plain, asio::buffer(chunk),
                                                            transfer_all_at_once, use_nothrow);
      if (ec) {
        if (self->open) self->fail_all(ec);
        break;
      }
      self->traffic->bytes_sent += n;
    }
    self->writing = false;
  }

  static awaitable<void> read_loop(std::shared_ptr<Impl> self) {
    std::vector<RedisReply> replies;
    while (self->open) {
      auto buffer = asio::buffer(self->in);
      auto [ec, n] = self->tls ? co_await self->tls->async_read_some(buffer, use_nothrow)
                               : co_await self->plain.async_read_some(buffer, use_nothrow);
      if (!self->open) co_return;
      if (ec) {
        self->fail_all(ec);
        co_return;
      }
      self->traffic->bytes_received += n;
      replies.clear();
      const error_code fed = self->reader.feed({self->in.data(), n}, replies);
      for (auto& reply : replies) {
        if (!self->deliver(std::move(reply))) {
          self->fail_all(RedisErrc::unexpected_reply);
          co_return;
        }
      }
      if (fed) {
        self->fail_all(fed);
        co_return;
      }
    }
  }

  // The TLS handshake within the connect deadline: a timer closes the socket.
  static awaitable<error_code> handshake(std::shared_ptr<Impl> self, const RedisOptions& options,
                                         Clock::time_point deadline) {
    const std::string name =
        options.server_name.empty() ? options.endpoint.host : options.server_name;
    error_code literal_ec;
    asio::ip::make_address(name, literal_ec);
    // SNI only for names (RFC 6066 §3 forbids IP literals); verification covers both.
    if (literal_ec && SSL_set_tlsext_host_name(self->tls->native_handle(), name.c_str()) != 1)
      co_return error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category());
    self->tls->set_verify_mode(asio::ssl::verify_peer);
    self->tls->set_verify_callback(asio::ssl::host_name_verification(name));
    enum class Race { running, done, expired };
    auto race = std::make_shared<Race>(Race::running);
    asio::steady_timer timer(self->executor, deadline);
    timer.async_wait([self, race](error_code ec) {
      if (ec || *race != Race::running) return;
      *race = Race::expired;
      error_code ignored;
      self->lowest().close(ignored);
    });
    auto [ec] = co_await self->tls->async_handshake(asio::ssl::stream_base::client, use_nothrow);
    timer.cancel();
    if (*race == Race::expired) co_return error_code(asio::error::timed_out);
    *race = Race::done;
    co_return ec;
  }
};

RedisConnection::RedisConnection(asio::any_io_executor executor, RedisOptions options)
    : executor_(std::move(executor)),
      options_(std::move(options)),
      traffic_(std::make_shared<RedisTraffic>()) {}

RedisConnection::~RedisConnection() { close(); }

awaitable<error_code> RedisConnection::connect() {
  close();
  auto impl = std::make_shared<Impl>(executor_, options_, traffic_);
  impl_ = impl;
  const auto deadline = Clock::now() + options_.connect_timeout;
  {
    beast::tcp_stream stream(executor_);
    const ConnectOutcome outcome =
        co_await connect_by_name(stream, options_.endpoint.host, options_.endpoint.port, deadline);
    if (outcome.ec) co_return outcome.ec;
    if (impl->aborted) co_return error_code(asio::error::operation_aborted);
    impl->plain = stream.release_socket();
  }
  // Commands are small and pipelined: Nagle would hold each write for the last ACK.
  error_code ignored;
  impl->plain.set_option(tcp::no_delay(true), ignored);
  if (options_.tls != nullptr) {
    impl->tls = std::make_unique<Impl::Tls>(std::move(impl->plain), *options_.tls);
    if (auto ec = co_await Impl::handshake(impl, options_, deadline)) {
      impl->fail_all(ec);
      co_return ec;
    }
    if (impl->aborted) co_return error_code(asio::error::operation_aborted);
  }
  impl->open = true;
  asio::co_spawn(executor_, Impl::read_loop(impl), asio::detached);
  if (!options_.password.empty()) {
    RedisCommand auth{"AUTH"};
    if (!options_.username.empty()) auth.push_back(options_.username);
    auth.push_back(options_.password);
    std::vector<RedisCommand> commands;
    commands.push_back(std::move(auth));
    auto [ec, replies] = co_await impl->call(std::move(commands), deadline, impl);
    if (ec) co_return ec;
    if (replies.at(0).is_error()) {
      impl->fail_all(RedisErrc::auth_refused);
      co_return RedisErrc::auth_refused;
    }
  }
  // GCC 12 rejects a braced list of commands inside co_await ("array used as initializer").
  std::vector<RedisCommand> ping(1, RedisCommand(1, "PING"));
  auto [ec, replies] = co_await impl->call(std::move(ping), deadline, impl);
  if (ec) co_return ec;
  const RedisReply& pong = replies.at(0);
  if (pong.type != RedisReply::Type::status || pong.str != "PONG") {
    // An error here is most often NOAUTH: a server that wants a password we did not give.
    const error_code why = pong.is_error() && pong.str.starts_with("NOAUTH")
                               ? error_code(RedisErrc::auth_refused)
                               : error_code(RedisErrc::unexpected_reply);
    impl->fail_all(why);
    co_return why;
  }
  co_return error_code{};
}

awaitable<std::tuple<error_code, std::vector<RedisReply>>> RedisConnection::pipeline(
    std::vector<RedisCommand> commands, std::chrono::milliseconds extra) {
  auto impl = impl_;  // this object may go while the call waits; the session may not
  if (!impl)
    co_return std::tuple{error_code(asio::error::not_connected), std::vector<RedisReply>{}};
  const auto deadline = Clock::now() + options_.command_timeout + extra;
  co_return co_await impl->call(std::move(commands), deadline, impl);
}

awaitable<std::tuple<error_code, RedisReply>> RedisConnection::command(
    RedisCommand args, std::chrono::milliseconds extra) {
  std::vector<RedisCommand> commands;
  commands.push_back(std::move(args));
  auto [ec, replies] = co_await pipeline(std::move(commands), extra);
  if (ec) co_return std::tuple{ec, RedisReply{}};
  co_return std::tuple{ec, std::move(replies.at(0))};
}

bool RedisConnection::is_open() const { return impl_ && impl_->open; }

void RedisConnection::close() {
  if (!impl_) return;
  impl_->aborted = true;
  impl_->fail_all(asio::error::operation_aborted);
}

awaitable<error_code> RedisConnection::wait_closed() {
  auto impl = impl_;
  if (!impl) co_return error_code(asio::error::not_connected);
  if (impl->open) co_await impl->closed.async_wait(use_nothrow);
  co_return impl->close_reason;
}

}  // namespace sumcache::daemon
