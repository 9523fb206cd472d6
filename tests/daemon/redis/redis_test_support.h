#pragma once
// What the connection and link tests share: running coroutines on the test's
// thread with a bound, and a raw TCP server for faults that need exact bytes.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <list>
#include <optional>
#include <string>

#include "daemon/net/asio.h"

namespace sumcache::daemon::redis_test {

using namespace std::chrono_literals;

// Runs `io` on this thread until `done()` or `limit` passes; true when done.
inline bool run_until(asio::io_context& io, const std::function<bool()>& done,
                      std::chrono::milliseconds limit = 30s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  io.restart();
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    io.run_one_for(10ms);
    if (io.stopped()) io.restart();
  }
  return done();
}

// Spawns `task` and runs `io` until it ends (bounded); its result.
template <class T>
std::optional<T> run(asio::io_context& io, awaitable<T> task,
                     std::chrono::milliseconds limit = 30s) {
  auto result = std::make_shared<std::optional<T>>();
  asio::co_spawn(io, std::move(task), [result](std::exception_ptr e, T value) {
    if (e) std::rethrow_exception(e);
    *result = std::move(value);
  });
  run_until(
      io, [&] { return result->has_value(); }, limit);
  return *result;
}

// A server on 127.0.0.1 that plays `script` on each connection it accepts;
// connections stay open until the server goes (or the script closes them).
class RawServer {
 public:
  using Script = std::function<awaitable<void>(tcp::socket&)>;
  RawServer(asio::io_context& io, Script script)
      : acceptor_(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        script_(std::move(script)) {
    asio::co_spawn(io, accept_loop(), asio::detached);
  }
  ~RawServer() {
    error_code ignored;
    acceptor_.close(ignored);
    for (auto& s : sockets_) s.close(ignored);
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  int accepted() const { return accepted_; }

 private:
  awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor_.async_accept(use_nothrow);
      if (ec) co_return;
      ++accepted_;
      sockets_.push_back(std::move(socket));
      asio::co_spawn(acceptor_.get_executor(), script_(sockets_.back()), asio::detached);
    }
  }
  tcp::acceptor acceptor_;
  Script script_;
  std::list<tcp::socket> sockets_;
  int accepted_ = 0;
};

// Reads until `needle` has come (or the peer goes); what came.
inline awaitable<std::string> read_until(tcp::socket& s, std::string needle) {
  std::string got;
  char buf[4096];
  while (got.find(needle) == std::string::npos) {
    auto [ec, n] = co_await s.async_read_some(asio::buffer(buf), use_nothrow);
    if (ec) break;
    got.append(buf, n);
  }
  co_return got;
}

inline awaitable<void> write(tcp::socket& s, std::string bytes) {
  co_await asio::async_write(s, asio::buffer(bytes), use_nothrow);
}

}  // namespace sumcache::daemon::redis_test
