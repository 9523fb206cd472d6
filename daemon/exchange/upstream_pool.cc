#include "daemon/exchange/upstream_pool.h"

#include <openssl/ssl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace sumcache::daemon {
namespace {

using namespace asio::experimental::awaitable_operators;

// Async DNS with its own deadline: the resolver has none of its own.
awaitable<std::tuple<error_code, tcp::resolver::results_type>> resolve(
    asio::any_io_executor executor, const Origin& origin, std::chrono::milliseconds timeout) {
  error_code literal_ec;
  const auto address = asio::ip::make_address(origin.host, literal_ec);
  if (!literal_ec) {
    co_return std::tuple{error_code{}, tcp::resolver::results_type::create(
                                           tcp::endpoint(address, origin.port), origin.host,
                                           std::to_string(origin.port))};
  }
  tcp::resolver resolver(executor);
  asio::steady_timer timer(executor, timeout);
  auto outcome =
      co_await (resolver.async_resolve(origin.host, std::to_string(origin.port), use_nothrow) ||
                timer.async_wait(use_nothrow));
  if (outcome.index() == 1) {
    co_return std::tuple{error_code(asio::error::timed_out), tcp::resolver::results_type{}};
  }
  co_return std::get<0>(std::move(outcome));
}

}  // namespace

UpstreamPool::UpstreamPool(asio::any_io_executor executor, asio::ssl::context& tls,
                           UpstreamTimeouts timeouts, Logger& log)
    : executor_(std::move(executor)), tls_(tls), timeouts_(timeouts), log_(log) {}

awaitable<std::tuple<error_code, std::unique_ptr<UpstreamConnection>, bool>> UpstreamPool::acquire(
    const Origin& origin, std::string_view tls_server_name, std::chrono::milliseconds max_idle) {
  auto found = idle_.find(origin.pool_key());
  const auto now = std::chrono::steady_clock::now();
  const auto usable_age = std::min(max_idle, timeouts_.idle);
  // The back is the most recently returned: if it idled too long for this
  // request, so did every other one, which stays for requests that may retry.
  while (found != idle_.end() && !found->second.empty() &&
         now - found->second.back()->idle_since < usable_age) {
    std::unique_ptr<UpstreamConnection> connection = std::move(found->second.back());
    found->second.pop_back();
    --stats_.idle;
    error_code ignored;
    connection->tcp().socket().cancel(ignored);  // the watch; a late completion finds no match
    if (drop_if_unclean(*connection, probe(*connection), "before reuse")) continue;
    ++stats_.reuses;
    co_return std::tuple{error_code{}, std::move(connection), true};
  }
  if (found != idle_.end()) {
    // Past the idle timeout for every request: close them all.
    auto& list = found->second;
    while (!list.empty() && now - list.front()->idle_since >= timeouts_.idle) {
      list.erase(list.begin());
      --stats_.idle;
    }
  }
  auto [ec, fresh] = co_await connect(origin, tls_server_name);
  co_return std::tuple{ec, std::move(fresh), false};
}

awaitable<std::tuple<error_code, std::unique_ptr<UpstreamConnection>>> UpstreamPool::connect(
    const Origin& origin, std::string_view tls_server_name) {
  ++stats_.connects;
  auto [resolve_ec, endpoints] = co_await resolve(executor_, origin, timeouts_.dns);
  if (resolve_ec) {
    ++stats_.connect_failures;
    co_return std::tuple{resolve_ec, nullptr};
  }
  // After resolution: a name that leads here is judged by where it leads.
  for (const auto& entry : endpoints) {
    if (!endpoint_check_) break;
    if (auto refused = endpoint_check_(origin, entry.endpoint())) {
      ++stats_.connect_failures;
      co_return std::tuple{refused, nullptr};
    }
  }
  beast::tcp_stream stream(executor_);
  stream.expires_after(timeouts_.connect);
  auto [connect_ec, endpoint] = co_await stream.async_connect(endpoints, use_nothrow);
  if (connect_ec) {
    ++stats_.connect_failures;
    co_return std::tuple{connect_ec, nullptr};
  }
  error_code ignored;
  stream.socket().set_option(tcp::no_delay(true), ignored);
  if (!origin.tls) {
    co_return std::tuple{error_code{},
                         std::make_unique<UpstreamConnection>(origin, std::move(stream))};
  }
  if (origin.peer && peer_tls_ == nullptr) {
    ++stats_.connect_failures;
    co_return std::tuple{error_code(asio::error::no_protocol_option), nullptr};
  }
  UpstreamConnection::Tls tls_stream(std::move(stream), origin.peer ? *peer_tls_ : tls_);
  if (auto ec = co_await handshake(tls_stream, origin, tls_server_name)) {
    ++stats_.connect_failures;
    co_return std::tuple{ec, nullptr};
  }
  co_return std::tuple{error_code{},
                       std::make_unique<UpstreamConnection>(origin, std::move(tls_stream))};
}

awaitable<error_code> UpstreamPool::handshake(UpstreamConnection::Tls& stream, const Origin& origin,
                                              std::string_view server_name) {
  const std::string name = server_name.empty() ? origin.host : std::string(server_name);
  error_code literal_ec;
  asio::ip::make_address(name, literal_ec);
  // SNI only for names (RFC 6066 §3 forbids IP literals); verification covers both.
  if (literal_ec && SSL_set_tlsext_host_name(stream.native_handle(), name.c_str()) != 1) {
    co_return error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category());
  }
  stream.set_verify_callback(asio::ssl::host_name_verification(name));
  beast::get_lowest_layer(stream).expires_after(timeouts_.connect);
  auto [ec] = co_await stream.async_handshake(asio::ssl::stream_base::client, use_nothrow);
  co_return ec;
}

void UpstreamPool::release(std::unique_ptr<UpstreamConnection> connection) {
  const std::string key = connection->origin().pool_key();
  auto& list = idle_[key];
  if (list.size() >= timeouts_.max_idle_per_origin) return;
  if (drop_if_unclean(*connection, probe(*connection), "after a response")) return;
  connection->idle_since = std::chrono::steady_clock::now();
  connection->idle_period = ++next_idle_period_;
  connection->tcp().expires_never();
  watch(*connection, key);
  list.push_back(std::move(connection));
  ++stats_.idle;
}

void UpstreamPool::discard_stray(std::unique_ptr<UpstreamConnection> connection, std::size_t bytes,
                                 std::string_view where) {
  note_stray(connection->origin(), bytes, where);
}

void UpstreamPool::note_stray(const Origin& origin, std::size_t bytes, std::string_view where) {
  ++stats_.stray_discarded;
  const auto held_back = stray_log_.admit(LogLimiter::Clock::now());
  if (!held_back) return;
  log_.warn("upstream " + origin.pool_key() + " sent " +
            (bytes > 0 ? std::to_string(bytes) + " bytes" : std::string("bytes")) +
            " nobody asked for " + std::string(where) + "; connection closed, not reused (" +
            std::to_string(*held_back) + " more since the last such line)");
}

// recv with MSG_PEEK consumes nothing: EAGAIN is a clean idle socket, 0 the
// origin's FIN, anything else bytes (or an error) that end the connection.
UpstreamPool::SocketState UpstreamPool::probe(UpstreamConnection& connection) {
  if (connection.tls_bytes_pending()) return SocketState::stray;
  char byte = 0;
  const ssize_t n =
      ::recv(connection.tcp().socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return SocketState::clean;
  if (n > 0) return SocketState::stray;
  return SocketState::closed;
}

bool UpstreamPool::drop_if_unclean(UpstreamConnection& connection, SocketState state,
                                   std::string_view where) {
  switch (state) {
    case SocketState::clean:
      return false;
    case SocketState::closed:
      ++stats_.idle_closed;
      return true;
    case SocketState::stray:
      // Over TLS the bytes cannot be told from a close_notify alert or a
      // session ticket without decrypting them: closed either way, counted as
      // the origin's close.
      if (connection.origin().tls) {
        ++stats_.idle_closed;
        return true;
      }
      note_stray(connection.origin(), 0, where);
      return true;
  }
  return true;
}

void UpstreamPool::watch(UpstreamConnection& connection, const std::string& key) {
  connection.tcp().socket().async_wait(tcp::socket::wait_read,
                                       [this, alive = std::weak_ptr<int>(alive_), key,
                                        period = connection.idle_period](error_code ec) {
                                         if (alive.expired()) return;
                                         on_idle_ready(key, period, ec);
                                       });
}

void UpstreamPool::on_idle_ready(const std::string& key, std::uint64_t idle_period, error_code ec) {
  if (ec == asio::error::operation_aborted) return;  // taken by acquire, or closed
  auto found = idle_.find(key);
  if (found == idle_.end()) return;
  auto& list = found->second;
  const auto it = std::find_if(list.begin(), list.end(), [idle_period](const auto& c) {
    return c->idle_period == idle_period;
  });
  if (it == list.end()) return;  // handed out (and maybe back) since the wait was queued
  UpstreamConnection& connection = **it;
  const SocketState state = ec ? SocketState::closed : probe(connection);
  if (state == SocketState::clean) {
    watch(connection, key);  // a wakeup with nothing to read
    return;
  }
  drop_if_unclean(connection, state, "on an idle connection");
  list.erase(it);
  --stats_.idle;
}

UpstreamPoolStats UpstreamPool::stats() const { return stats_; }

}  // namespace sumcache::daemon
